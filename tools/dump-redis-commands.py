#!/usr/bin/env python3
"""Regenerates spinel-protocol's command metadata from a real redis-server 7.0.

Usage: tools/dump-redis-commands.py [port]   (a redis-server must listen on 127.0.0.1:port)

Writes the RESP3 replies of COMMAND INFO and COMMAND DOCS, one command per record, to
spinel-protocol/src/main/resources/dev/spinel/protocol/. Spinel re-encodes these trees for RESP2 or
RESP3 clients, so COMMAND, COMMAND INFO and COMMAND DOCS answer exactly as Redis 7.0 does for every
command Spinel implements; arity, flags and key positions used by the dispatcher come from the same data.
"""
import os, socket, sys

port = int(sys.argv[1]) if len(sys.argv) > 1 else 6379
s = socket.create_connection(("127.0.0.1", port))
f = s.makefile("rb")

def send(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    s.sendall(out)

def read_raw():
    """Returns the raw bytes of one RESP3 value."""
    line = f.readline()
    t = line[:1]
    if t in (b"+", b"-", b":", b",", b"#", b"_", b"("):
        return line
    if t in (b"$", b"=", b"!"):
        n = int(line[1:-2])
        return line + (f.read(n + 2) if n >= 0 else b"")
    if t in (b"*", b"~", b">"):
        n = int(line[1:-2])
        return line + b"".join(read_raw() for _ in range(max(n, 0)))
    if t == b"%" or t == b"|":
        n = int(line[1:-2])
        return line + b"".join(read_raw() for _ in range(2 * n))
    raise ValueError(line)

def split_array(raw, pairs=False):
    """Splits the raw top-level aggregate into its element raws."""
    import io
    global f
    saved = f
    f = io.BufferedReader(io.BytesIO(raw))
    head = f.readline()
    n = int(head[1:-2]) * (2 if pairs else 1)
    items = [read_raw() for _ in range(n)]
    f = saved
    return items

send("HELLO", "3"); read_raw()
send("COMMAND"); info = split_array(read_raw())
send("COMMAND", "DOCS"); docs = split_array(read_raw(), pairs=True)

outdir = os.path.join(os.path.dirname(__file__), "..", "spinel-protocol", "src", "main", "resources", "dev", "spinel", "protocol")
os.makedirs(outdir, exist_ok=True)
info.sort(key=lambda r: split_array(r)[0])
with open(os.path.join(outdir, "command-info.resp3"), "wb") as o:
    o.write(b"*%d\r\n" % len(info) + b"".join(info))
pairs = sorted((docs[i], docs[i + 1]) for i in range(0, len(docs), 2))
with open(os.path.join(outdir, "command-docs.resp3"), "wb") as o:
    o.write(b"%%%d\r\n" % len(pairs) + b"".join(k + v for k, v in pairs))
print(len(info), "commands,", len(pairs), "docs")
