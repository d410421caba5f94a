#!/usr/bin/env bash
# Where each idle connection's memory goes (issue #15; docs/memory.md, round 7). Usage:
#   bench/idle-breakdown.sh [CHECKOUT] [PORT] [CONNS]   (defaults: this checkout, 26001, 9000)
# Starts CHECKOUT's bin/spinel-server (built), waits 10 s, opens CONNS connections that each PING
# (bench/idle_clients.py), and prints the RSS growth per connection 2 s and 10 s after (compare.sh's timing), the
# live heap per connection (GC.class_histogram before and after, the second after a forced collection) with its
# largest classes, and the bytes the JVM's threads allocated while the connections opened (jstack -e).
# SPINEL_JAVA_OPTS is passed on (e.g. with -Xlog:gc* or -XX:NativeMemoryTracking=summary). Measures memory only.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$here}; port=${2:-26001}; conns=${3:-9000}
out=$(mktemp -d /tmp/idle-breakdown.XXXXXX)
ulimit -n $((conns + 1000))
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
"$root/bin/spinel-server" --port "$port" --grpc-port 0 --save "" --dir "$out" > "$out/server.log" 2>&1 &
for _ in $(seq 100); do redis-cli -p "$port" PING > /dev/null 2>&1 && break; sleep 0.3; done
pid=$(pgrep -f "Main --port $port ")
trap 'kill "$pid" 2>/dev/null || true' EXIT
sleep 10
rss0=$(rss "$pid")
jcmd "$pid" GC.class_histogram > "$out/h0.txt"
jstack -e "$pid" > "$out/js0.txt"
coproc IDLE { python3 "$here/bench/idle_clients.py" "$port" "$conns"; }
read -r line <&"${IDLE[0]}"
[ "$line" = ready ] || { echo "idle-breakdown: the connections failed" >&2; exit 1; }
jstack -e "$pid" > "$out/js1.txt"
sleep 2
rss1=$(rss "$pid")
sleep 8
rss2=$(rss "$pid")
jcmd "$pid" GC.heap_info > "$out/heap_info.txt"
jcmd "$pid" GC.run > /dev/null
sleep 4
jcmd "$pid" GC.class_histogram > "$out/h1.txt"
echo "RSS growth per connection: $(( (rss1 - rss0) * 1024 / conns )) B 2 s after, $(( (rss2 - rss0) * 1024 / conns )) B 10 s after"
python3 - "$out" "$conns" <<'PY'
import re, sys
out, n = sys.argv[1], int(sys.argv[2])
def histogram(f):
    d = {}
    for l in open(f):
        m = re.match(r'\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)', l)
        if m:
            d[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return d
def allocated(f):
    d = {}
    for l in open(f):
        m = re.match(r'^"([^"]+)".*allocated=(\d+)(\w*)', l)
        if m:
            d[m.group(1)] = int(m.group(2)) * {'': 1, 'B': 1, 'K': 1024, 'KB': 1024, 'M': 1 << 20, 'MB': 1 << 20}.get(m.group(3), 1 << 30)
    return d
a, b = histogram(out + '/h0.txt'), histogram(out + '/h1.txt')
rows = sorted(((b.get(k, (0, 0))[1] - a.get(k, (0, 0))[1], b.get(k, (0, 0))[0] - a.get(k, (0, 0))[0], k) for k in set(a) | set(b)), reverse=True)
print("live heap per connection: %.0f B" % (sum(r[0] for r in rows) / n))
for size, count, name in rows[:30]:
    print("  %8.1f B  %7d  %s" % (size / n, count, name))
x, y = allocated(out + '/js0.txt'), allocated(out + '/js1.txt')
print("allocated while connecting: %.0f B per connection" % (sum(v - x.get(k, 0) for k, v in y.items()) / n))
PY
echo "files: $out"
exec {IDLE[1]}>&-
wait "$IDLE_PID" 2>/dev/null || true
