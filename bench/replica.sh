#!/usr/bin/env bash
# A master's throughput with one replica attached, against the same master without one (issue #17's target:
# >= 0.9x), for Spinel and for redis-server side by side, in one run.
#
#   bench/replica.sh                 ROUNDS (3) alternating rounds, medians
#
# Each round and server: a fresh master (no persistence), warmed up for WARMUP_SECONDS (5), is measured with memtier_benchmark 2.3.0 alone
# ("alone"), then a replica of the same kind is attached with REPLICAOF, the script waits for
# master_link_status:up, and the master is measured again ("replica"); at the end of that run the replica's
# offset must reach the master's (the stream was applied, not dropped) within 30 s, and DBSIZE must match.
# Load: memtier -t 2 -c 16 --pipeline 30 (32 connections), SET:GET 1:10, -d 256, random keys over
# MEMTIER_KEYS (100000), MEMTIER_SECONDS (10) per run. Reported per server: ops/s alone, ops/s with the
# replica, their ratio, and ops per master CPU-second (utime+stime from /proc) for both; and the replica's own CPU
# seconds during the run. On a machine whose
# cores the load generator and the replica share with the master, the replica's own CPU is taken from the
# same cores: compare the two servers' ratios, not only each against 0.9.
#
# Environment: ROUNDS, MEMTIER_SECONDS, WARMUP_SECONDS, MEMTIER_KEYS, OUT (raw results; default a temporary directory),
# NO_BUILD=1 (use the jar already built), MEMTIER (path to memtier_benchmark or its wrapper).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
MEMTIER_SECONDS=${MEMTIER_SECONDS:-10}
MEMTIER_KEYS=${MEMTIER_KEYS:-100000}
WARMUP_SECONDS=${WARMUP_SECONDS:-5}
MEMTIER=${MEMTIER:-$root/../shared/tools/memtier.sh}
OUT=${OUT:-$(mktemp -d /tmp/spinel-replica.XXXXXX)}
mkdir -p "$OUT"
CLK_TCK=$(getconf CLK_TCK)
SCRIPT_NAME=replica.sh
. "$root/bench/lib/ports.sh"

for tool in redis-server redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "replica.sh: $tool not found (apt-get install redis-server redis-tools python3)" >&2; exit 2; }
done
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -f "$root/pom.xml" -DskipTests -pl spinel-server -am package >&2
fi

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_ping() { # port pid
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# start KIND -> STARTED_PID, STARTED_PORT
start() {
  for _ in 1 2 3 4 5; do
    STARTED_PORT=$(free_port)
    if [ "$1" = redis ]; then
      redis-server --port "$STARTED_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
        --logfile "$OUT/redis-$STARTED_PORT.log" &
    else
      "$root/bin/spinel-server" --port "$STARTED_PORT" --bind 127.0.0.1 --save "" --appendonly no \
        --grpc-port "$(free_port)" > "$OUT/spinel-$STARTED_PORT.log" 2>&1 &
    fi
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    wait_ping "$STARTED_PORT" "$STARTED_PID" && return 0
  done
  echo "replica.sh: $1 did not start (see $OUT)" >&2; exit 1
}

stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
info_field() { redis-cli -p "$1" INFO replication | tr -d '\r' | awk -F: -v f="$2" '$1 == f {print $2}'; }

# measure KIND MODE ROUND PID PORT: one line in $OUT/replica.tsv
measure() {
  local kind=$1 mode=$2 round=$3 pid=$4 port=$5 json="$OUT/memtier-$1-$2-$3.json" before after
  before=$(cpu_ticks "$pid")
  "$MEMTIER" -s 127.0.0.1 -p "$port" -t 2 -c 16 --pipeline=30 --test-time="$MEMTIER_SECONDS" -d 256 --ratio=1:10 \
    --key-pattern=R:R --key-maximum="$MEMTIER_KEYS" --hide-histogram --json-out-file="$json" \
    > "$OUT/memtier-$kind-$mode-$round.log" 2>&1
  after=$(cpu_ticks "$pid")
  python3 - "$json" "$kind" "$mode" "$round" "$((after - before))" "$CLK_TCK" >> "$OUT/replica.tsv" <<'PY'
import json, sys
path, kind, mode, rnd, ticks, clk = sys.argv[1:]
t = json.load(open(path))["ALL STATS"]["Totals"]
cpu = int(ticks) / int(clk)
print("\t".join([kind, mode, rnd, "%.0f" % t["Ops/sec"], "%.0f" % (t["Count"] / cpu if cpu > 0 else 0),
                 str(t["Percentile Latencies"]["p99.00"])]))
PY
}

round_for() { # KIND ROUND
  local kind=$1 round=$2 mpid mport rpid rport
  start "$kind"; mpid=$STARTED_PID; mport=$STARTED_PORT
  # warm-up (the JIT, the keys): not counted
  "$MEMTIER" -s 127.0.0.1 -p "$mport" -t 2 -c 16 --pipeline=30 --test-time="$WARMUP_SECONDS" -d 256 --ratio=1:10 \
    --key-pattern=R:R --key-maximum="$MEMTIER_KEYS" --hide-histogram > "$OUT/warmup-$kind-$round.log" 2>&1
  measure "$kind" alone "$round" "$mpid" "$mport"
  start "$kind"; rpid=$STARTED_PID; rport=$STARTED_PORT
  redis-cli -p "$rport" REPLICAOF 127.0.0.1 "$mport" >/dev/null
  for _ in $(seq 1 300); do [ "$(info_field "$rport" master_link_status)" = up ] && break; sleep 0.1; done
  [ "$(info_field "$rport" master_link_status)" = up ] || { echo "replica.sh: $kind replica never linked (see $OUT)" >&2; exit 1; }
  local rbefore rafter
  rbefore=$(cpu_ticks "$rpid")
  measure "$kind" replica "$round" "$mpid" "$mport"
  rafter=$(cpu_ticks "$rpid")
  # the replica's CPU seconds over the measured run (it shares the machine's cores with the master and the load)
  awk -v k="$kind" -v r="$round" -v t="$((rafter - rbefore))" -v c="$CLK_TCK" 'BEGIN {printf "%s\t%s\t%.2f\n", k, r, t / c}' \
    >> "$OUT/replica-cpu.tsv"
  local moff roff=0
  moff=$(info_field "$mport" master_repl_offset)
  for _ in $(seq 1 300); do
    roff=$(info_field "$rport" master_repl_offset)
    [ "${roff:-0}" -ge "$moff" ] && break
    sleep 0.1
  done
  [ "${roff:-0}" -ge "$moff" ] || { echo "replica.sh: $kind replica at offset $roff, master at $moff after 30 s" >&2; exit 1; }
  local md rd
  md=$(redis-cli -p "$mport" DBSIZE); rd=$(redis-cli -p "$rport" DBSIZE)
  [ "$md" = "$rd" ] || { echo "replica.sh: $kind DBSIZE master $md, replica $rd" >&2; exit 1; }
  stop "$rpid"; stop "$mpid"
}

: > "$OUT/replica.tsv"
: > "$OUT/replica-cpu.tsv"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="redis spinel"; else order="spinel redis"; fi
  for kind in $order; do
    echo "round $round: $kind" >&2
    round_for "$kind" "$round"
  done
done

echo "memtier_benchmark 2.3.0 (-t 2 -c 16 --pipeline 30, SET:GET 1:10, -d 256, ${MEMTIER_SECONDS}s per run), master alone vs with one replica; medians of $ROUNDS rounds"
awk -F'\t' '
  function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { ops[$1 "," $2] = ops[$1 "," $2] " " $4; cpu[$1 "," $2] = cpu[$1 "," $2] " " $5; p99[$1 "," $2] = p99[$1 "," $2] " " $6 }
  END {
    printf "| server | ops/s alone | ops/s with a replica | ratio | ops per master CPU-s alone / with | p99 alone / with (ms) |\n|---|---:|---:|---:|---|---|\n"
    split("redis spinel", k, " ")
    for (i = 1; i <= 2; i++) { a = median(ops[k[i] ",alone"]); r = median(ops[k[i] ",replica"])
      printf "| %s | %.0f | %.0f | %.2f | %.0f / %.0f | %.2f / %.2f |\n", k[i], a, r, (a > 0 ? r / a : 0),
        median(cpu[k[i] ",alone"]), median(cpu[k[i] ",replica"]), median(p99[k[i] ",alone"]), median(p99[k[i] ",replica"]) }
  }' "$OUT/replica.tsv"
awk -F'\t' '{ s[$1] = s[$1] " " $3 } END { for (k in s) print "replica CPU seconds per " '"$MEMTIER_SECONDS"' " s run, " k ":" s[k] }' "$OUT/replica-cpu.tsv"
echo "Raw results: $OUT/replica.tsv, $OUT/replica-cpu.tsv"
