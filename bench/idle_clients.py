#!/usr/bin/env python3
"""Opens N idle connections to 127.0.0.1:PORT, checks each with PING, then holds them until stdin closes.

Usage: idle_clients.py PORT N  (prints "ready" once all N answered PONG)."""
import socket
import sys

port, n = int(sys.argv[1]), int(sys.argv[2])
conns = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    conns.append(s)
for s in conns:
    s.sendall(b"PING\r\n")
for i, s in enumerate(conns):
    got = b""
    while len(got) < 7:
        chunk = s.recv(7 - len(got))
        if not chunk:
            sys.exit("connection %d closed: %r" % (i, got))
        got += chunk
    if got != b"+PONG\r\n":
        sys.exit("connection %d answered %r" % (i, got))
print("ready", flush=True)
sys.stdin.read()
