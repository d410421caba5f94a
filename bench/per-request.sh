#!/usr/bin/env bash
# Per-request costs that do not depend on the machine's load: syscalls by kind, clock reads (libc clock_gettime,
# through which every System.nanoTime/currentTimeMillis of the JVM goes), voluntary context switches and, for a
# JVM, bytes allocated by the event-loop threads, over a fixed number of memtier requests against a running server.
#
#   bench/per-request.sh PID PORT unpiped|piped|conns1024 [N]
#
# PID: the server process (bin/spinel-server's java, or redis-server); PORT: its port; N: requests per connection
# (default 2000). unpiped: -c 50 --pipeline 1; piped: -c 32 --pipeline 30; conns1024: -c 1024 --pipeline 30 (with
# small N this mostly measures connection set-up). Always -t 1, SET:GET 1:10, 256-byte values, random keys.
# Warm a JVM up first (one unmeasured run): the counts of an unwarmed server include the JIT's.
# Needs root (perf tracepoints, a uprobe on libc's clock_gettime) and ../shared/tools/memtier.sh or MEMTIER.
# Redis 7.0's gettimeofday (its per-command ustime) goes to the vDSO without libc's clock_gettime: not counted.
set -euo pipefail
pid=$1; port=$2; mode=$3; n=${4:-2000}
memtier=${MEMTIER:-$(cd "$(dirname "$0")/../.." && pwd)/shared/tools/memtier.sh}
[ -x "$memtier" ] || memtier=/work/shared/tools/memtier.sh
case $mode in
  unpiped) c=50; args="-c 50 --pipeline 1" ;;
  piped) c=32; args="-c 32 --pipeline 30" ;;
  conns1024) c=1024; args="-c 1024 --pipeline 30" ;;
  *) echo "mode: unpiped, piped or conns1024" >&2; exit 2 ;;
esac
requests=$((c * n))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
libc=$(ldd /bin/true | awk '/libc.so/ {print $3}')
perf probe -q -x "$libc" clock_gettime 2>/dev/null || true
java_home=$(readlink -f /proc/$pid/exe | sed 's#/bin/java$##')
allocated() { # bytes allocated so far by the event-loop threads of a JVM (jcmd Thread.print -e), 0 for another process
  [ -x "$java_home/bin/jcmd" ] || { echo 0; return; }
  "$java_home/bin/jcmd" "$pid" Thread.print -e | grep -E '^"spinel-loop' | sed -E 's/.*allocated=([0-9]+)([BKMG]).*/\1 \2/' \
    | awk '{m = $2 == "K" ? 1024 : $2 == "M" ? 1048576 : $2 == "G" ? 1073741824 : 1; s += $1 * m} END {print s + 0}'
}
switches() { cat /proc/$pid/task/*/status | awk '/^voluntary_ctxt/ {s += $2} END {print s}'; }
a1=$(allocated); s1=$(switches)
perf stat -x, -e 'syscalls:sys_enter_*' -e probe_libc:clock_gettime -p "$pid" -o "$out/perf" &
perfpid=$!
sleep 3 # attaching every syscall tracepoint takes a while
"$memtier" -s 127.0.0.1 -p "$port" -t 1 $args -n "$n" --ratio 1:10 -d 256 --key-pattern R:R --hide-histogram >"$out/memtier" 2>&1
kill -INT $perfpid; wait $perfpid || true
a2=$(allocated); s2=$(switches)
echo "$requests requests ($mode), per request:"
awk -F, -v r=$requests '$1 + 0 > 0 {sub("syscalls:sys_enter_", "", $3); sub("probe_libc:", "libc ", $3); printf "  %-22s %10d %9.4f\n", $3, $1, $1 / r}' "$out/perf" | sort -k2 -nr
awk -v r=$requests -v s=$((s2 - s1)) 'BEGIN {printf "  %-22s %10d %9.4f\n", "voluntary switches", s, s / r}'
[ "$a2" -gt 0 ] && awk -v r=$requests -v a=$((a2 - a1)) 'BEGIN {printf "  %-22s %10d %9.1f\n", "loop bytes allocated", a, a / r}'
exit 0
