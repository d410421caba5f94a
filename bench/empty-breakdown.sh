#!/usr/bin/env bash
# What an empty server's RSS is made of (issue #15; docs/memory.md, round 9). Usage:
#   bench/empty-breakdown.sh [PORT] [WAIT]      (defaults: 26101, 10 s; SPINEL_JAVA_OPTS and SERVER_ARGS passed on)
# Starts this checkout's bin/spinel-server (gRPC on a port of its own, no save), waits WAIT seconds after its first
# PONG, then prints VmRSS, the RSS of each kind of mapping from /proc/PID/smaps (the Java heap's memfd, the CDS
# archive, libjvm.so, malloc's [heap], anonymous memory, the rest), the JVM's own accounting of the anonymous part
# (NMT: it runs with -XX:NativeMemoryTracking=summary, which adds ~1 MB of its own, shown as such), ZGC's heap, the
# classes loaded and the jars held open. Memory only: the figures do not depend on the machine's load, except the
# heap's share, which moves by a few MB with the timing of ZGC's cycles (compare builds over several runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${1:-26101}; wait_s=${2:-10}
out=$(mktemp -d /tmp/empty-breakdown.XXXXXX)
defaults=$(sed -n 's/^default_opts="\(.*\)"$/\1/p' "$root/bin/spinel-server")
SPINEL_JAVA_OPTS="${SPINEL_JAVA_OPTS:-$defaults} -XX:NativeMemoryTracking=summary" "$root/bin/spinel-server" \
  --port "$port" --bind 127.0.0.1 --save "" --grpc-port $((port + 1)) --dir "$out" ${SERVER_ARGS:-} > "$out/server.log" 2>&1 &
launcher=$!
for _ in $(seq 600); do [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break; sleep 0.1; done
pid=$(pgrep -f "Main --port $port " | head -1)
trap 'kill "$pid" 2>/dev/null || true; wait "$launcher" 2>/dev/null || true' EXIT
sleep "$wait_s"
jcmd=$("$root/bin/find-java")/bin/jcmd
echo "VmRSS $(awk '/^VmRSS/ {printf "%.1f MB", $2 / 1024}' "/proc/$pid/status"), $wait_s s after the first PONG (pid $pid)"
python3 - "$pid" <<'PY'
import re, sys
kinds = {}
kind = None
for line in open('/proc/%s/smaps' % sys.argv[1]):
    if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
        f = line.split()
        name = f[5] if len(f) > 5 else ''
        kind = ('Java heap (memfd)' if 'java_heap' in name else 'CDS archive' if name.endswith('.jsa')
                else 'libjvm.so' if 'libjvm' in name else 'malloc [heap]' if name == '[heap]'
                else 'anonymous (NMT below)' if name == '' else 'the rest (libc, modules, jars, stacks guard...)')
    elif line.startswith('Rss:'):
        kinds[kind] = kinds.get(kind, 0) + int(line.split()[1])
for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
    print('  %-48s %6.1f MB' % (k, v / 1024))
PY
echo "NMT, committed (MB):"
"$jcmd" "$pid" VM.native_memory summary | awk '/^-/ { name = $0; sub(/^- */, "", name); sub(/ *\(.*/, "", name);
  if (match($0, /committed=[0-9]+KB/)) { kb = substr($0, RSTART + 10, RLENGTH - 12) + 0; if (kb >= 256) printf "  %-28s %6.1f\n", name, kb / 1024 } }'
"$jcmd" "$pid" GC.heap_info | sed -n '2,3p'
"$jcmd" "$pid" VM.classes | awk '/^0x/ { n++; if (NF >= 5 && $4 ~ /S/) s++; if ($NF ~ /\$\$Lambda/) l++ }
  END { printf "classes: %d (%d from the CDS archive, %d lambdas'"'"' hidden classes)", n, s, l }'
echo ", jars open: $(ls -l "/proc/$pid/fd" | grep -c '\.jar$' || true)"
