#!/usr/bin/env bash
# What a Spinel replica spends applying a fixed stream, counted rather than timed (docs/benchmarks.md, "Replica
# apply costs"): a Spinel master and a Spinel replica of it, a warm-up of N SETs, then N more SETs
# (redis-benchmark -P 30 -c 4, 16-byte values, 1,000 random keys), waiting each time for the replica's offset to
# reach the master's. Nothing is reported per second.
#
#   bench/replica-costs.sh strace   syscalls of the whole replica process during the second N (strace -f -c)
#   bench/replica-costs.sh jfr      JFR execution samples (profile settings, method-profiling=max) of both
#                                   processes over both loads: where the time goes, as shares
#
# Environment: N (200000), ROOT (a checkout whose spinel-grpc/target is built; default this one, so an older
# commit can be measured from a `git archive` copy), OUT (default /tmp/spinel-replica-costs-MODE).
# Prints the stream's byte count and both processes' CPU ticks (utime+stime) for the second N, and leaves the
# strace summary or the two .jfr files in OUT (read them with `jfr print --events jdk.ExecutionSample`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:?usage: bench/replica-costs.sh strace|jfr}
N=${N:-200000}
ROOT=${ROOT:-$here}
OUT=${OUT:-/tmp/spinel-replica-costs-$MODE}
SCRIPT_NAME=replica-costs.sh
. "$here/bench/lib/ports.sh"
for tool in redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "$SCRIPT_NAME: $tool not found (apt-get install redis-tools)" >&2; exit 2; }
done
[ "$MODE" != strace ] || command -v strace >/dev/null || { echo "$SCRIPT_NAME: strace not found" >&2; exit 2; }
JAVA_HOME=$("$here/bin/find-java")
jar=$(ls "$ROOT"/spinel-grpc/target/spinel-grpc-*.jar 2>/dev/null | grep -v -e sources -e tests -e javadoc | head -1 || true)
[ -n "$jar" ] || { echo "$SCRIPT_NAME: build $ROOT first (mvn -DskipTests -pl spinel-grpc -am package)" >&2; exit 2; }
cp="$jar:$ROOT/spinel-grpc/target/lib/*"
opts="-XX:+UseCompactObjectHeaders -XX:+UseZGC -Xms16m -Dio.netty.leakDetection.level=disabled -Dio.netty.jfr.enabled=false
  --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" # the servers' directory: no dump.rdb of anyone else's is loaded
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

start() { # NAME -> STARTED_PID, STARTED_PORT
  local jfr=""
  [ "$MODE" = jfr ] && jfr="-XX:StartFlightRecording=filename=$OUT/$1.jfr,settings=profile,method-profiling=max,dumponexit=true"
  STARTED_PORT=$(free_port)
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $opts $jfr -cp "$cp" dev.spinel.server.Main --port "$STARTED_PORT" --bind 127.0.0.1 \
    --save "" --appendonly no --grpc-port 0 > "$OUT/$1.log" 2>&1 &
  STARTED_PID=$!
  PIDS+=("$STARTED_PID")
  for _ in $(seq 1 300); do
    [ "$(redis-cli -p "$STARTED_PORT" PING 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "$SCRIPT_NAME: $1 did not start (see $OUT/$1.log)" >&2; exit 1
}
field() { redis-cli -p "$1" INFO replication | tr -d '\r' | awk -F: -v f="$2" '$1 == f {print $2}'; }
ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
load() { redis-benchmark -p "$mport" -n "$N" -t set -P 30 -c 4 -r 1000 -d 16 -q > "$OUT/load-$1.txt"; }
insync() {
  for _ in $(seq 1 600); do
    [ "$(field "$rport" slave_repl_offset)" = "$(field "$mport" master_repl_offset)" ] && return 0
    sleep 0.1
  done
  echo "$SCRIPT_NAME: the replica did not catch up" >&2; exit 1
}

start master; mpid=$STARTED_PID; mport=$STARTED_PORT
start replica; rpid=$STARTED_PID; rport=$STARTED_PORT
redis-cli -p "$rport" REPLICAOF 127.0.0.1 "$mport" > /dev/null
for _ in $(seq 1 300); do [ "$(field "$rport" master_link_status)" = up ] && break; sleep 0.1; done
load warmup; insync
if [ "$MODE" = strace ]; then
  strace -f -c -o "$OUT/strace-replica.txt" -p "$rpid" 2>/dev/null & spid=$!
  sleep 2 # attached to every thread
fi
off0=$(field "$mport" master_repl_offset); r0=$(ticks "$rpid"); m0=$(ticks "$mpid")
load measured; insync
off1=$(field "$mport" master_repl_offset); r1=$(ticks "$rpid"); m1=$(ticks "$mpid")
if [ "$MODE" = strace ]; then kill -INT "$spid"; wait "$spid" 2>/dev/null || true; fi
[ "$(redis-cli -p "$mport" DBSIZE)" = "$(redis-cli -p "$rport" DBSIZE)" ] || { echo "$SCRIPT_NAME: DBSIZE differs" >&2; exit 1; }
kill "$rpid" "$mpid"; wait "$rpid" "$mpid" 2>/dev/null || true
PIDS=()
echo "$N SETs: stream $((off1 - off0)) bytes; CPU ticks (1/$(getconf CLK_TCK) s) replica $((r1 - r0)), master $((m1 - m0))"
[ "$MODE" = strace ] && cat "$OUT/strace-replica.txt"
echo "Results in $OUT"
