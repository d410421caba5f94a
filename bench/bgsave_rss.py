#!/usr/bin/env python3
"""Samples memory of a server process and its children every 100 ms until BGSAVE ends.
usage: bench/bgsave_rss.py PID PORT  (starts BGSAVE through redis-cli, samples until it ends) -> prints peak RSS of the main process, peak sum of RSS and of PSS over main + children."""
import os, sys, time, subprocess
pid, port = int(sys.argv[1]), sys.argv[2]
def kids(p):
    out = []
    try:
        for t in os.listdir(f"/proc/{p}/task"):
            with open(f"/proc/{p}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out
def mem(p):
    r = s = 0
    try:
        with open(f"/proc/{p}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"): r = int(line.split()[1])
                elif line.startswith("Pss:"): s = int(line.split()[1])
    except OSError:
        pass
    return r, s
def inprog():
    o = subprocess.run(["redis-cli", "-p", port, "info", "persistence"], capture_output=True, text=True).stdout
    return "rdb_bgsave_in_progress:1" in o
base = mem(pid)
start = time.time()
subprocess.run(["redis-cli", "-p", port, "bgsave"], capture_output=True)
peak_main = peak_rss = peak_pss = 0
n = 0
while True:
    ps = [pid] + kids(pid)
    ms = [mem(p) for p in ps]
    peak_main = max(peak_main, ms[0][0])
    peak_rss = max(peak_rss, sum(m[0] for m in ms))
    peak_pss = max(peak_pss, sum(m[1] for m in ms))
    n += 1
    if n % 5 == 0 and not inprog():
        break
    time.sleep(0.1)
print(f"before: rss {base[0]//1024} MB pss {base[1]//1024} MB; during BGSAVE ({time.time()-start:.1f} s, {n} samples): "
      f"peak main rss {peak_main//1024} MB, peak rss main+child {peak_rss//1024} MB, peak pss main+child {peak_pss//1024} MB")
