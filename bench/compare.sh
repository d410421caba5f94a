#!/usr/bin/env bash
# Side-by-side load comparison of Spinel and redis-server on this machine, in one run.
#
#   bench/compare.sh              full run (ROUNDS=3, a few minutes)
#   QUICK=1 bench/compare.sh      smoke run (small -n, 1 round)
#
# Environment: ROUNDS (default 3; the median of the rounds is reported), QUICK=1, N_PIPE, N_PLAIN,
# N_CONN (requests per redis-benchmark run), KEYS (keys for the memory scenario, default 1000000),
# BENCH_THREADS (redis-benchmark --threads, default 1), SPINEL_JAVA_OPTS (passed to bin/spinel-server),
# SPINEL_ARGS (extra server arguments, e.g. "--io-transport io_uring"),
# OUT (directory for raw results, default a temporary one), NO_BUILD=1 (use the jar already built).
#
# Scenarios (each with -t set,get): pipelined (-P 30 -c 32 -d 256), unpipelined (-P 1 -c 50),
# many connections (-P 30 -c 1024), and pipe-memory: KEYS keys of 14 bytes with 32-byte values loaded with
# redis-cli --pipe into a freshly started server, then VmRSS of the server process; and idle: RSS of a fresh
# server holding IDLE_CONNS (10000) idle connections opened by bench/idle_clients.py (skipped without python3).
# Both read VmRSS 2 s after the load / the connections, and again SETTLE_SECONDS (8) later.
#
# "memory" (issue #15's table; MEM_ROUNDS rounds, default ROUNDS, servers alternating first), each reading VmRSS
# of a freshly started server: (1) empty, EMPTY_WAIT (10) s after its first PONG; then MEM_CONNS (9000) idle
# connections, each having sent one PING (bench/idle_clients.py), read 2 s and SETTLE_SECONDS + 2 s after they
# answered, the growth per connection being (RSS with them - empty RSS) / MEM_CONNS; (2) another fresh server
# loaded with memtier_benchmark --ratio=1:0 --key-pattern=P:P --key-maximum=MEM_KEYS (1000000) -n allkeys -d 32
# (its defaults otherwise: 4 threads x 50 connections), checked with DBSIZE, read 2 s and SETTLE_SECONDS + 2 s
# after the load. Spinel runs with bin/spinel-server's default JVM options (SPINEL_JAVA_OPTS overrides) and its
# gRPC service on (the default) on a free port.
# Server CPU seconds per run come from /proc/<pid>/stat (utime+stime), giving ops per CPU-second.
# Rounds alternate which server runs first. Installs nothing: needs redis-server and redis-benchmark.
#
# PARTS (default "memtier redis-benchmark loadgen collections memory") selects what runs. "memtier" is the
# reference: memtier_benchmark 2.3.0 (../shared/tools/memtier.sh, or MEMTIER=/path/to/memtier_benchmark),
# SET:GET 1:10, 256-byte values, random keys over MEMTIER_KEYS (100000), 2 threads (-t 2), MEMTIER_SECONDS
# (10; 3 in QUICK mode) per run, in the same three scenarios; it reports ops/s, p50/p99/p99.9 and ops per server
# CPU-second (the total count of operations over the server's utime+stime for the run). "loadgen" runs the same three
# scenarios with bench/load.sh (spinel-bench's HdrHistogram load generator, SET:GET 1:10, 100000 keys,
# LOAD_SECONDS per run, default 10, 3 in QUICK mode) and reports ops/s, p99, p99.9 and ops per server CPU-second.
# "grpc" (not in the default set: it builds etcd 3.5 with Go on first use) runs bench/grpc-compare.sh: Spinel's
# gRPC service beside etcd 3.5 with the same client, unary Put and Get with 100 in flight on one connection and
# Spinel's Batch stream; ops/s, p50/p99 and ops per server CPU-second (GRPC_* settings: see that script;
# in QUICK mode 1 round of 3 s after a 5 s warm-up: a smoke run, the JIT is still compiling Spinel's gRPC path).
# E.g. PARTS=grpc bench/compare.sh
# "perkey" (not in the default set; PERKEY_ROUNDS rounds, default 1, servers alternating first): issue #15's key
# cases, each on a fresh server started with --save '' (no save point during the loads): memtier_benchmark
# --ratio=1:0 --key-pattern=P:P -n allkeys -d 32 with MEM_KEYS (1000000) keys, the same with a TTL on each key
# (--expiry-range=36000-36000), and with BIG_KEYS (10000000) keys, RSS 2 s and SETTLE_SECONDS + 2 s after each
# load; then a BGSAVE of the BIG_KEYS keys sampled by bench/bgsave_rss.py (peak RSS and PSS of the server and its
# forked child). Reports the per-key slope (RSS(BIG_KEYS) - RSS(MEM_KEYS)) / (BIG_KEYS - MEM_KEYS) for both
# servers, and for Spinel writes `jcmd GC.heap_info` and the class histogram's top after the save to OUT.
# E.g. PARTS=perkey PORT_BASE=25000 PORT_SPAN=1000 bench/compare.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

for tool in redis-server redis-benchmark redis-cli; do
  if ! command -v "$tool" >/dev/null; then
    echo "compare.sh: $tool not found. Install it with: sudo apt-get install redis-server redis-tools" >&2
    exit 2
  fi
done

# Build first, so that the jar measured is the current source (bin/spinel-server would build only a missing
# jar, and the first start must not count against the start-up wait). NO_BUILD=1 skips this.
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -f "$root/pom.xml" -DskipTests -pl spinel-server,spinel-bench -am package >&2
fi

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  ROUNDS=${ROUNDS:-1}; N_PIPE=${N_PIPE:-200000}; N_PLAIN=${N_PLAIN:-20000}; N_CONN=${N_CONN:-200000}; KEYS=${KEYS:-100000}
else
  ROUNDS=${ROUNDS:-3}; N_PIPE=${N_PIPE:-2000000}; N_PLAIN=${N_PLAIN:-200000}; N_CONN=${N_CONN:-1000000}; KEYS=${KEYS:-1000000}
fi
BENCH_THREADS=${BENCH_THREADS:-1}
PARTS=${PARTS:-memtier redis-benchmark loadgen collections memory}
MEMTIER=${MEMTIER:-$root/../shared/tools/memtier.sh}
MEMTIER_KEYS=${MEMTIER_KEYS:-100000}
# The collections part: redis-benchmark's list, set, hash and sorted-set tests, pipelined.
COLLECTION_TESTS=lpush,lpop,sadd,hset,zadd,lrange_100
N_COLL=${N_COLL:-$((N_PIPE / 4))}
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if [ "$QUICK" = 1 ]; then LOAD_SECONDS=${LOAD_SECONDS:-3}; else LOAD_SECONDS=${LOAD_SECONDS:-10}; fi
if [ "$QUICK" = 1 ]; then MEMTIER_SECONDS=${MEMTIER_SECONDS:-3}; else MEMTIER_SECONDS=${MEMTIER_SECONDS:-10}; fi
if { has_part memtier || has_part memory; } && [ ! -x "$MEMTIER" ]; then
  echo "compare.sh: memtier_benchmark not found at $MEMTIER (set MEMTIER, or leave memtier out of PARTS)" >&2
  exit 2
fi
IDLE_CONNS=${IDLE_CONNS:-10000}
MEM_ROUNDS=${MEM_ROUNDS:-$ROUNDS}
MEM_CONNS=${MEM_CONNS:-9000}
MEM_KEYS=${MEM_KEYS:-1000000}
BIG_KEYS=${BIG_KEYS:-10000000}
PERKEY_ROUNDS=${PERKEY_ROUNDS:-1}
EMPTY_WAIT=${EMPTY_WAIT:-10}
if has_part memory && [ "$(ulimit -n)" -le $((MEM_CONNS + 200)) ]; then
  ulimit -n $((MEM_CONNS + 1000)) 2>/dev/null || {
    echo "compare.sh: the memory part needs ulimit -n > MEM_CONNS + 200 ($(ulimit -n)); raise it or lower MEM_CONNS" >&2; exit 2; }
fi
SETTLE_SECONDS=${SETTLE_SECONDS:-8}
OUT=${OUT:-$(mktemp -d /tmp/spinel-compare.XXXXXX)}
mkdir -p "$OUT"
RESULTS="$OUT/results.tsv"
: > "$RESULTS"
CLK_TCK=$(getconf CLK_TCK)

# A port below the kernel's ephemeral range (so no client socket of redis-benchmark holds it) that nothing
# answers on; a server that still fails to bind is retried on another port.
SCRIPT_NAME=compare.sh
. "$root/bench/lib/ports.sh"

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_ping() { # port pid -> 0 when PONG, 1 when the process died
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  echo "compare.sh: server on port $1 did not answer PING within 60 s" >&2; exit 1
}

# start_server NAME -> sets SERVER_PID and SERVER_PORT
start_server() {
  for _ in 1 2 3 4 5; do
    SERVER_PORT=$(free_port)
    if [ "$1" = redis ]; then
      redis-server --port "$SERVER_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --maxclients 10100 \
        --logfile "$OUT/redis-$SERVER_PORT.log" ${SERVER_DIR:+--dir "$SERVER_DIR"} &
    else
      # the gRPC service (on by default) on a free port too, so that a server already on its default port 50051
      # does not stop this one from starting
      "$root/bin/spinel-server" --port "$SERVER_PORT" --bind 127.0.0.1 --maxclients 10100 --grpc-port "$(free_port)" \
        ${SERVER_DIR:+--dir "$SERVER_DIR" --save ""} ${SPINEL_ARGS:-} > "$OUT/spinel-$SERVER_PORT.log" 2>&1 &
    fi
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    if wait_ping "$SERVER_PORT" "$SERVER_PID"; then return 0; fi
    echo "compare.sh: $1 could not start on port $SERVER_PORT, trying another" >&2
  done
  echo "compare.sh: $1 did not start (see $OUT)" >&2; exit 1
}

stop_server() { # pid
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

cpu_ticks() { # pid -> utime+stime in clock ticks (fields after the ')' of the command name)
  sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# run_bench SERVER PID PORT SCENARIO ROUND N ARGS... : appends one line per test to RESULTS
run_bench() {
  local server=$1 pid=$2 port=$3 scenario=$4 round=$5 n=$6; shift 6
  local before after csv
  before=$(cpu_ticks "$pid")
  csv=$(redis-benchmark -h 127.0.0.1 -p "$port" -n "$n" --threads "$BENCH_THREADS" --csv "$@" -t "${BENCH_TESTS:-set,get}")
  after=$(cpu_ticks "$pid")
  local cpu_s
  cpu_s=$(awk -v a="$after" -v b="$before" -v t="$CLK_TCK" 'BEGIN {printf "%.3f", (a - b) / t}')
  # CSV: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  echo "$csv" | tr -d '"' | awk -F, -v s="$server" -v sc="$scenario" -v r="$round" -v cpu="$cpu_s" -v n="$n" \
    'NR > 1 && $1 != "test" { ops = (cpu > 0) ? (2 * n / cpu) : 0;
       printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\n", s, sc, $1, r, $2, $5, $7, ops }' >> "$RESULTS"
}

# run_load SERVER PID PORT SCENARIO ROUND ARGS... : one line in $OUT/load.tsv (bench/load.sh, HdrHistogram)
run_load() {
  local server=$1 pid=$2 port=$3 scenario=$4 round=$5; shift 5
  local before after line
  before=$(cpu_ticks "$pid")
  line=$(NO_BUILD=1 "$root/bench/load.sh" --port "$port" --duration "$LOAD_SECONDS" --warmup 1 "$@" | grep '^RESULT')
  after=$(cpu_ticks "$pid")
  # ops per CPU-second over the measured window only is not available (warm-up included): scale by duration share
  echo "$line" | awk -v s="$server" -v sc="$scenario" -v r="$round" -v a="$after" -v b="$before" -v t="$CLK_TCK" \
    -v d="$LOAD_SECONDS" '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      cpu = (a - b) / t; ops = (cpu > 0) ? v["ops_s"] * (d + 1) / cpu : 0;
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\n", s, sc, r, v["ops_s"], v["p50_ms"], v["p99_ms"], v["p999_ms"], ops }' \
    >> "$OUT/load.tsv"
}

# run_memtier SERVER PID PORT SCENARIO ROUND CONNS_PER_THREAD PIPELINE : one line in $OUT/memtier.tsv
run_memtier() {
  local server=$1 pid=$2 port=$3 scenario=$4 round=$5 conns=$6 pipeline=$7
  local before after json="$OUT/memtier-$server-$scenario-$round.json"
  before=$(cpu_ticks "$pid")
  "$MEMTIER" -s 127.0.0.1 -p "$port" -t 2 -c "$conns" --pipeline="$pipeline" --test-time="$MEMTIER_SECONDS" \
    -d 256 --ratio=1:10 --key-pattern=R:R --key-maximum="$MEMTIER_KEYS" --hide-histogram \
    --json-out-file="$json" > "$OUT/memtier-$server-$scenario-$round.log" 2>&1
  after=$(cpu_ticks "$pid")
  python3 - "$json" "$server" "$scenario" "$round" "$(( after - before ))" "$CLK_TCK" >> "$OUT/memtier.tsv" <<'PY'
import json, sys
path, server, scenario, rnd, ticks, clk = sys.argv[1:]
t = json.load(open(path))["ALL STATS"]["Totals"]
p = t["Percentile Latencies"]
cpu = int(ticks) / int(clk)
print("\t".join([server, scenario, rnd, "%.0f" % t["Ops/sec"], str(p["p50.00"]), str(p["p99.00"]), str(p["p99.90"]),
                 "%.0f" % (t["Count"] / cpu if cpu > 0 else 0), "%.3f" % cpu]))
PY
}

# load_keys PORT FILE -> seconds taken
make_load_file() {
  local f="$OUT/load-$KEYS.resp"
  if [ ! -s "$f" ]; then
    # key: "k:" + 12 digits = 14 bytes; value: 32 bytes
    awk -v n="$KEYS" 'BEGIN { v = "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv";
      for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$14\r\nk:%012d\r\n$32\r\n%s\r\n", i, v }' > "$f"
  fi
  echo "$f"
}

memory_round() { # SERVER ROUND
  local server=$1 round=$2 file start end rss0 rss
  file=$(make_load_file)
  start_server "$server"
  local pid=$SERVER_PID port=$SERVER_PORT
  sleep 1
  rss0=$(rss_kb "$pid")
  start=$(date +%s.%N)
  redis-cli -p "$port" --pipe < "$file" > "$OUT/pipe-$server-$round.log"
  end=$(date +%s.%N)
  # check the load really happened: the last key must be there
  local last
  last=$(redis-cli -p "$port" GET "k:$(printf %012d $((KEYS - 1)))")
  [ "$last" = vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv ] || { echo "compare.sh: load into $server failed" >&2; exit 1; }
  sleep 2 # let a concurrent GC settle before reading RSS
  rss=$(rss_kb "$pid")
  # and once more after SETTLE_SECONDS idle: what a JVM returns to the OS (uncommitted heap, trimmed malloc) by then
  sleep "$SETTLE_SECONDS"
  local rss_settled
  rss_settled=$(rss_kb "$pid")
  awk -v s="$server" -v r="$round" -v rss="$rss" -v rss0="$rss0" -v t0="$start" -v t1="$end" -v n="$KEYS" -v rs="$rss_settled" \
    'BEGIN { printf "%s\tmemory\tLOAD\t%s\t%.0f\t0\t0\t0\t%d\t%d\t%d\n", s, r, n / (t1 - t0), rss, rss0, rs }' >> "$OUT/memory.tsv"
  stop_server "$pid"
}

# idle_round SERVER: RSS growth of a fresh server holding IDLE_CONNS idle connections (needs python3)
idle_round() {
  local server=$1 rss0 rss
  start_server "$server"
  local pid=$SERVER_PID port=$SERVER_PORT
  sleep 1
  rss0=$(rss_kb "$pid")
  coproc IDLE { python3 "$root/bench/idle_clients.py" "$port" "$IDLE_CONNS"; }
  local line=""
  read -r line <&"${IDLE[0]}" || true
  [ "$line" = ready ] || { echo "compare.sh: $IDLE_CONNS idle connections to $server failed" >&2; exit 1; }
  redis-cli -p "$port" PING > /dev/null
  sleep 2
  rss=$(rss_kb "$pid")
  sleep "$SETTLE_SECONDS"
  local rss_settled
  rss_settled=$(rss_kb "$pid")
  exec {IDLE[1]}>&-
  wait "$IDLE_PID" 2>/dev/null || true
  printf '%s\t%d\t%d\t%d\n' "$server" "$rss0" "$rss" "$rss_settled" >> "$OUT/idle.tsv"
  stop_server "$pid"
}

# memory_empty_idle SERVER ROUND: empty RSS of a fresh server, then with MEM_CONNS idle connections (issue #15)
memory_empty_idle() {
  local server=$1 round=$2 rss0 rss1 rss2
  start_server "$server"
  local pid=$SERVER_PID port=$SERVER_PORT
  sleep "$EMPTY_WAIT"
  rss0=$(rss_kb "$pid")
  coproc IDLE { python3 "$root/bench/idle_clients.py" "$port" "$MEM_CONNS"; }
  local line=""
  read -r line <&"${IDLE[0]}" || true
  [ "$line" = ready ] || { echo "compare.sh: $MEM_CONNS idle connections to $server failed" >&2; exit 1; }
  sleep 2
  rss1=$(rss_kb "$pid")
  sleep "$SETTLE_SECONDS"
  rss2=$(rss_kb "$pid")
  exec {IDLE[1]}>&-
  wait "$IDLE_PID" 2>/dev/null || true
  printf '%s\tempty\t%s\t%d\t%d\t%d\n' "$server" "$round" "$rss0" "$rss1" "$rss2" >> "$OUT/mem.tsv"
  stop_server "$pid"
}

# memory_keys SERVER ROUND: RSS of a fresh server after memtier wrote MEM_KEYS keys with 32-byte values
memory_keys() {
  local server=$1 round=$2 rss0 rss1 rss2 n
  start_server "$server"
  local pid=$SERVER_PID port=$SERVER_PORT
  sleep 1
  rss0=$(rss_kb "$pid")
  "$MEMTIER" -s 127.0.0.1 -p "$port" --ratio=1:0 --key-pattern=P:P --key-maximum="$MEM_KEYS" -n allkeys -d 32 \
    --hide-histogram > "$OUT/memtier-load-$server-$round.log" 2>&1
  n=$(redis-cli -p "$port" DBSIZE)
  [ "$n" -ge "$MEM_KEYS" ] || { echo "compare.sh: memtier loaded $n keys into $server, not $MEM_KEYS" >&2; exit 1; }
  sleep 2
  rss1=$(rss_kb "$pid")
  sleep "$SETTLE_SECONDS"
  rss2=$(rss_kb "$pid")
  printf '%s\tkeys\t%s\t%d\t%d\t%d\n' "$server" "$round" "$rss0" "$rss1" "$rss2" >> "$OUT/mem.tsv"
  stop_server "$pid"
}

# perkey_load SERVER ROUND CASE KEYS [MEMTIER ARGS...]: a fresh server loaded by memtier; leaves it running
# (PERKEY_PID, PERKEY_PORT) and appends "server case round rss0 rss1 rss2" to $OUT/perkey.tsv
perkey_load() {
  local server=$1 round=$2 case=$3 keys=$4 rss0 rss1 rss2 n; shift 4
  SERVER_DIR="$OUT/dir-$server-$case-$round"; mkdir -p "$SERVER_DIR"
  start_server "$server"
  SERVER_DIR=""
  PERKEY_PID=$SERVER_PID; PERKEY_PORT=$SERVER_PORT
  sleep 1
  rss0=$(rss_kb "$PERKEY_PID")
  "$MEMTIER" -s 127.0.0.1 -p "$PERKEY_PORT" --ratio=1:0 --key-pattern=P:P --key-maximum="$keys" -n allkeys -d 32 \
    --hide-histogram "$@" > "$OUT/memtier-$case-$server-$round.log" 2>&1
  n=$(redis-cli -p "$PERKEY_PORT" DBSIZE)
  [ "$n" -ge "$keys" ] || { echo "compare.sh: memtier loaded $n keys into $server, not $keys" >&2; exit 1; }
  sleep 2
  rss1=$(rss_kb "$PERKEY_PID")
  sleep "$SETTLE_SECONDS"
  rss2=$(rss_kb "$PERKEY_PID")
  printf '%s\t%s\t%s\t%d\t%d\t%d\n' "$server" "$case" "$round" "$rss0" "$rss1" "$rss2" >> "$OUT/perkey.tsv"
}

# perkey_round SERVER ROUND: the three loads, and BGSAVE's peak after the largest
perkey_round() {
  local server=$1 round=$2 line
  perkey_load "$server" "$round" keys "$MEM_KEYS"; stop_server "$PERKEY_PID"
  perkey_load "$server" "$round" ttl "$MEM_KEYS" --expiry-range=36000-36000; stop_server "$PERKEY_PID"
  perkey_load "$server" "$round" big "$BIG_KEYS"
  line=$(python3 "$root/bench/bgsave_rss.py" "$PERKEY_PID" "$PERKEY_PORT")
  echo "$server round $round, $BIG_KEYS keys: $line" >> "$OUT/perkey-bgsave.txt"
  # "before: rss A MB pss B MB; during BGSAVE (...): peak main rss C MB, peak rss main+child D MB, peak pss main+child E MB"
  echo "$line" | awk -v s="$server" -v r="$round" '{ for (i = 1; i <= NF; i++) if ($i ~ /^MB/) v[++k] = $(i - 1);
    printf "%s\tbgsave\t%s\t%d\t%d\t%d\n", s, r, v[1] * 1024, v[4] * 1024, v[5] * 1024 }' >> "$OUT/perkey.tsv"
  if [ "$server" = spinel ]; then
    local jcmd; jcmd="$("$root/bin/find-java")/bin/jcmd"
    { "$jcmd" "$PERKEY_PID" GC.heap_info; "$jcmd" "$PERKEY_PID" GC.class_histogram | head -12; sleep 4
      echo "RSS 4 s after the histogram's full collection: $(rss_kb "$PERKEY_PID") kB"; } \
      > "$OUT/perkey-heap-$round.txt" 2>&1 || true
  fi
  stop_server "$PERKEY_PID"
}

echo "Results in $OUT (ROUNDS=$ROUNDS, N_PIPE=$N_PIPE, N_PLAIN=$N_PLAIN, N_CONN=$N_CONN, KEYS=$KEYS)" >&2

# The gRPC part first: it starts its own Spinel and etcd, and the RESP servers below are not running yet.
: > "$OUT/grpc-report.md"
if has_part grpc; then
  if [ "$QUICK" = 1 ]; then
    export GRPC_ROUNDS=${GRPC_ROUNDS:-1} GRPC_SECONDS=${GRPC_SECONDS:-3} GRPC_WARMUP_SECONDS=${GRPC_WARMUP_SECONDS:-5}
  else
    export GRPC_ROUNDS=${GRPC_ROUNDS:-$ROUNDS}
  fi
  NO_BUILD=1 OUT="$OUT/grpc" "$root/bench/grpc-compare.sh" > "$OUT/grpc-report.md"
fi
: > "$OUT/memory.tsv"

THROUGHPUT=0
for p in memtier redis-benchmark collections loadgen; do has_part $p && THROUGHPUT=1; done
if [ "$THROUGHPUT" = 1 ]; then
start_server redis; REDIS_PID=$SERVER_PID; REDIS_PORT=$SERVER_PORT
start_server spinel; SPINEL_PID=$SERVER_PID; SPINEL_PORT=$SERVER_PORT

# Warm-up (the JVM compiles its hot paths), not counted.
: > "$OUT/load.tsv"
: > "$OUT/memtier.tsv"
for s in redis spinel; do
  has_part redis-benchmark || has_part loadgen || has_part memtier || break
  if [ $s = redis ]; then p=$REDIS_PORT; else p=$SPINEL_PORT; fi
  redis-benchmark -p "$p" -n $((N_PIPE / 4)) -P 30 -c 32 -d 256 -t set,get -q > /dev/null
  redis-benchmark -p "$p" -n $((N_PLAIN / 4)) -P 1 -c 50 -t set,get -q > /dev/null
done
for s in redis spinel; do
  has_part collections || break
  if [ $s = redis ]; then p=$REDIS_PORT; else p=$SPINEL_PORT; fi
  redis-benchmark -p "$p" -n $((N_COLL / 2)) -P 30 -c 32 -t "$COLLECTION_TESTS" -q > /dev/null
done

for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="redis spinel"; else order="spinel redis"; fi
  for s in $order; do
    if [ $s = redis ]; then pid=$REDIS_PID; port=$REDIS_PORT; else pid=$SPINEL_PID; port=$SPINEL_PORT; fi
    echo "round $round: $s" >&2
    if has_part memtier; then
      run_memtier $s "$pid" "$port" pipelined "$round" 16 30
      run_memtier $s "$pid" "$port" conn1024 "$round" 512 30
      run_memtier $s "$pid" "$port" unpipelined "$round" 25 1
    fi
    if has_part redis-benchmark; then
      run_bench $s "$pid" "$port" pipelined "$round" "$N_PIPE" -P 30 -c 32 -d 256
      run_bench $s "$pid" "$port" unpipelined "$round" "$N_PLAIN" -P 1 -c 50
      run_bench $s "$pid" "$port" conn1024 "$round" "$N_CONN" -P 30 -c 1024
    fi
    if has_part collections; then
      BENCH_TESTS=$COLLECTION_TESTS run_bench $s "$pid" "$port" collections "$round" "$N_COLL" -P 30 -c 32
    fi
    if has_part loadgen; then
      run_load $s "$pid" "$port" pipelined "$round" --conns 32 --pipeline 30 --value-size 256
      run_load $s "$pid" "$port" unpipelined "$round" --conns 50 --pipeline 1 --value-size 256
      run_load $s "$pid" "$port" conn1024 "$round" --conns 1024 --pipeline 30 --value-size 256
    fi
  done
done
stop_server "$REDIS_PID"; stop_server "$SPINEL_PID"
fi

: > "$OUT/mem.tsv"
for round in $(seq 1 "$MEM_ROUNDS"); do
  has_part memory || break
  if [ $((round % 2)) = 1 ]; then order="redis spinel"; else order="spinel redis"; fi
  for s in $order; do
    echo "round $round: memory (empty, $MEM_CONNS idle connections, $MEM_KEYS keys) $s" >&2
    memory_empty_idle $s "$round"
    memory_keys $s "$round"
  done
done

for round in $(seq 1 "$PERKEY_ROUNDS"); do
  has_part perkey || break
  if [ $((round % 2)) = 1 ]; then order="redis spinel"; else order="spinel redis"; fi
  for s in $order; do
    echo "round $round: per-key memory ($MEM_KEYS keys, with a TTL, $BIG_KEYS keys and BGSAVE) $s" >&2
    perkey_round $s "$round"
  done
done

for round in $(seq 1 "$ROUNDS"); do
  has_part pipe-memory || break
  if [ $((round % 2)) = 1 ]; then order="redis spinel"; else order="spinel redis"; fi
  for s in $order; do
    echo "round $round: memory $s" >&2
    memory_round $s "$round"
  done
done

: > "$OUT/idle.tsv"
if ! has_part idle; then
  :
elif command -v python3 > /dev/null && [ "$(ulimit -n)" -gt $((IDLE_CONNS + 200)) ]; then
  for s in redis spinel; do
    echo "idle connections: $s" >&2
    idle_round $s
  done
else
  echo "compare.sh: idle-connection scenario skipped (needs python3 and ulimit -n > IDLE_CONNS + 200)" >&2
fi

# ---- report: medians over rounds ----
# An awk function shared by the report tables: the median of a space-separated list of numbers.
AWK_MEDIAN='function median(list,   a, n, i, j, t) {
  n = split(list, a, " ");
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

if [ -s "$OUT/memtier.tsv" ]; then
  echo
  echo "memtier_benchmark 2.3.0 (-t 2, SET:GET 1:10, -d 256, random keys over $MEMTIER_KEYS, ${MEMTIER_SECONDS}s per run; medians of $ROUNDS rounds)"
  echo
  echo "| scenario | Redis ops/s | Spinel ops/s | ratio | Redis p50/p99/p99.9 ms | Spinel p50/p99/p99.9 ms | Redis ops/CPU-s | Spinel ops/CPU-s | CPU ratio |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' "$AWK_MEDIAN"'
    { k = $2; keys[k] = 1; ops[$1, k] = ops[$1, k] " " $4; p50[$1, k] = p50[$1, k] " " $5;
      p99[$1, k] = p99[$1, k] " " $6; p999[$1, k] = p999[$1, k] " " $7; cpu[$1, k] = cpu[$1, k] " " $8 }
    END {
      split("pipelined conn1024 unpipelined", order, " ");
      names["pipelined"] = "32 conns, pipeline 30"; names["conn1024"] = "1024 conns, pipeline 30"; names["unpipelined"] = "50 conns, pipeline 1";
      for (o = 1; o <= 3; o++) { k = order[o]; if (!(k in keys)) continue;
        rr = median(ops["redis", k]); sr = median(ops["spinel", k]); rc = median(cpu["redis", k]); sc = median(cpu["spinel", k]);
        printf "| %s | %.0f | %.0f | %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.0f | %.0f | %.2f |\n", names[k], rr, sr,
          (rr > 0 ? sr / rr : 0), median(p50["redis", k]), median(p99["redis", k]), median(p999["redis", k]),
          median(p50["spinel", k]), median(p99["spinel", k]), median(p999["spinel", k]), rc, sc, (rc > 0 ? sc / rc : 0)
      }
    }' "$OUT/memtier.tsv"
fi
if [ -s "$RESULTS" ]; then
echo
echo "redis-benchmark (medians of $ROUNDS rounds)"
echo
echo "| scenario | test | Redis ops/s | Spinel ops/s | ratio | Redis p50/p99 ms | Spinel p50/p99 ms | Redis ops/CPU-s | Spinel ops/CPU-s | CPU ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' "$AWK_MEDIAN"'
  { k = $2 SUBSEP $3; keys[k] = 1; rps[$1, k] = rps[$1, k] " " $5; p50[$1, k] = p50[$1, k] " " $6;
    p99[$1, k] = p99[$1, k] " " $7; cpu[$1, k] = cpu[$1, k] " " $8 }
  END {
    split("pipelined unpipelined conn1024", order, " ");
    for (o = 1; o <= 3; o++) for (t = 1; t <= 2; t++) {
      test = (t == 1) ? "SET" : "GET"; k = order[o] SUBSEP test; if (!(k in keys)) continue;
      rr = median(rps["redis", k]); sr = median(rps["spinel", k]);
      rc = median(cpu["redis", k]); sc = median(cpu["spinel", k]);
      printf "| %s | %s | %.0f | %.0f | %.2f | %.3f / %.3f | %.3f / %.3f | %.0f | %.0f | %.2f |\n", order[o], test,
        rr, sr, (rr > 0 ? sr / rr : 0), median(p50["redis", k]), median(p99["redis", k]),
        median(p50["spinel", k]), median(p99["spinel", k]), rc, sc, (rc > 0 ? sc / rc : 0)
    }
  }' "$RESULTS"
fi
if grep -q $'\tcollections\t' "$RESULTS" 2>/dev/null; then
  echo
  echo "redis-benchmark collection commands (-P 30 -c 32, medians of $ROUNDS rounds)"
  echo
  echo "| test | Redis ops/s | Spinel ops/s | ratio | Redis p99 ms | Spinel p99 ms |"
  echo "|---|---:|---:|---:|---:|---:|"
  awk -F'\t' "$AWK_MEDIAN"'
    $2 == "collections" { if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
      rps[$1, $3] = rps[$1, $3] " " $5; p99[$1, $3] = p99[$1, $3] " " $7 }
    END { for (i = 1; i <= n; i++) { t = order[i]; rr = median(rps["redis", t]); sr = median(rps["spinel", t]);
      printf "| %s | %.0f | %.0f | %.2f | %.3f | %.3f |\n", t, rr, sr, (rr > 0 ? sr / rr : 0),
        median(p99["redis", t]), median(p99["spinel", t]) } }' "$RESULTS"
fi
if [ -s "$OUT/load.tsv" ]; then
  echo
  echo "bench/load.sh (SET:GET 1:10, 256-byte values, 100000 keys, ${LOAD_SECONDS}s per run; medians of $ROUNDS rounds)"
  echo
  echo "| scenario | Redis ops/s | Spinel ops/s | ratio | Redis p50/p99/p99.9 ms | Spinel p50/p99/p99.9 ms | Redis ops/CPU-s | Spinel ops/CPU-s | CPU ratio |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' "$AWK_MEDIAN"'
    { k = $2; keys[k] = 1; ops[$1, k] = ops[$1, k] " " $4; p50[$1, k] = p50[$1, k] " " $5;
      p99[$1, k] = p99[$1, k] " " $6; p999[$1, k] = p999[$1, k] " " $7; cpu[$1, k] = cpu[$1, k] " " $8 }
    END {
      split("pipelined unpipelined conn1024", order, " ");
      for (o = 1; o <= 3; o++) { k = order[o]; if (!(k in keys)) continue;
        rr = median(ops["redis", k]); sr = median(ops["spinel", k]); rc = median(cpu["redis", k]); sc = median(cpu["spinel", k]);
        printf "| %s | %.0f | %.0f | %.2f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.0f | %.0f | %.2f |\n", k, rr, sr,
          (rr > 0 ? sr / rr : 0), median(p50["redis", k]), median(p99["redis", k]), median(p999["redis", k]),
          median(p50["spinel", k]), median(p99["spinel", k]), median(p999["spinel", k]), rc, sc, (rc > 0 ? sc / rc : 0)
      }
    }' "$OUT/load.tsv"
fi
if [ -s "$OUT/mem.tsv" ]; then
  echo
  echo "memory (fresh servers; medians of $MEM_ROUNDS rounds; MB = 2^20 bytes)"
  echo
  echo "| what | Redis | Spinel | ratio |"
  echo "|---|---:|---:|---:|"
  awk -F'\t' -v n="$MEM_CONNS" -v keys="$MEM_KEYS" -v settle="$SETTLE_SECONDS" -v wait="$EMPTY_WAIT" "$AWK_MEDIAN"'
    $2 == "empty" { e0[$1] = e0[$1] " " $4; c1[$1] = c1[$1] " " $5; c2[$1] = c2[$1] " " $6;
                    g1[$1] = g1[$1] " " ($5 - $4) * 1024 / n; g2[$1] = g2[$1] " " ($6 - $4) * 1024 / n }
    $2 == "keys" { k1[$1] = k1[$1] " " $5; k2[$1] = k2[$1] " " $6 }
    function row(label, r, s, scale, fmt) {
      printf "| %s | " fmt " | " fmt " | %.2f |\n", label, r / scale, s / scale, (r > 0 ? s / r : 0) }
    END {
      row("RSS of the empty server, " wait " s after start (MB)", median(e0["redis"]), median(e0["spinel"]), 1024, "%.1f");
      row("RSS after " keys " keys, memtier -d 32, 2 s after (MB)", median(k1["redis"]), median(k1["spinel"]), 1024, "%.1f");
      row("the same " settle + 2 " s after (MB)", median(k2["redis"]), median(k2["spinel"]), 1024, "%.1f");
      row("RSS with " n " idle connections, 2 s after (MB)", median(c1["redis"]), median(c1["spinel"]), 1024, "%.1f");
      row("the same " settle + 2 " s after (MB)", median(c2["redis"]), median(c2["spinel"]), 1024, "%.1f");
      row("growth per idle connection, 2 s after (bytes)", median(g1["redis"]), median(g1["spinel"]), 1, "%.0f");
      row("the same " settle + 2 " s after (bytes)", median(g2["redis"]), median(g2["spinel"]), 1, "%.0f")
    }' "$OUT/mem.tsv"
fi
if [ -s "$OUT/perkey.tsv" ]; then
  echo
  echo "per-key memory (fresh servers, memtier -d 32, 14-byte keys; medians of $PERKEY_ROUNDS rounds; MB = 2^20 bytes)"
  echo
  echo "| what | Redis | Spinel | ratio |"
  echo "|---|---:|---:|---:|"
  awk -F'\t' -v keys="$MEM_KEYS" -v big="$BIG_KEYS" -v settle="$SETTLE_SECONDS" "$AWK_MEDIAN"'
    { a[$1, $2, 1] = a[$1, $2, 1] " " $5; a[$1, $2, 2] = a[$1, $2, 2] " " $6; a[$1, $2, 0] = a[$1, $2, 0] " " $4 }
    function row(label, c, i, scale, fmt,   r, s) { r = median(a["redis", c, i]); s = median(a["spinel", c, i]);
      printf "| %s | " fmt " | " fmt " | %.2f |\n", label, r / scale, s / scale, (r > 0 ? s / r : 0) }
    function slope(s, i) { return (median(a[s, "big", i]) - median(a[s, "keys", i])) * 1024 / (big - keys) }
    END {
      row("RSS after " keys " keys, 2 s after (MB)", "keys", 1, 1024, "%.1f");
      row("the same " settle + 2 " s after (MB)", "keys", 2, 1024, "%.1f");
      row("RSS after " keys " keys with a TTL each, 2 s after (MB)", "ttl", 1, 1024, "%.1f");
      row("the same " settle + 2 " s after (MB)", "ttl", 2, 1024, "%.1f");
      row("RSS after " big " keys, 2 s after (MB)", "big", 1, 1024, "%.1f");
      row("the same " settle + 2 " s after (MB)", "big", 2, 1024, "%.1f");
      r = slope("redis", 2); s = slope("spinel", 2);
      printf "| bytes per key, (RSS(%d) - RSS(%d)) / %d, settled | %.1f | %.1f | %.2f |\n", big, keys, big - keys, r, s, (r > 0 ? s / r : 0);
      row("BGSAVE of " big " keys: RSS before (MB)", "bgsave", 0, 1024, "%.1f");
      row("peak RSS during it, server + forked child (MB)", "bgsave", 1, 1024, "%.1f");
      row("peak PSS during it, server + forked child (MB)", "bgsave", 2, 1024, "%.1f")
    }' "$OUT/perkey.tsv"
fi
if [ -s "$OUT/memory.tsv" ]; then
echo
echo "| memory ($KEYS keys, 14-byte keys, 32-byte values) | Redis | Spinel | ratio |"
echo "|---|---:|---:|---:|"
awk -F'\t' -v settle="$SETTLE_SECONDS" "$AWK_MEDIAN"'
  { rss[$1] = rss[$1] " " $9; rss0[$1] = rss0[$1] " " $10; load[$1] = load[$1] " " $5; rss1[$1] = rss1[$1] " " $11 }
  END {
    r = median(rss["redis"]); s = median(rss["spinel"]);
    printf "| RSS after load (MB) | %.1f | %.1f | %.2f |\n", r / 1024, s / 1024, (r > 0 ? s / r : 0);
    r = median(rss1["redis"]); s = median(rss1["spinel"]);
    printf "| RSS %d s later, idle (MB) | %.1f | %.1f | %.2f |\n", settle + 2, r / 1024, s / 1024, (r > 0 ? s / r : 0);
    r0 = median(rss0["redis"]); s0 = median(rss0["spinel"]);
    printf "| RSS empty, before load (MB) | %.1f | %.1f | |\n", r0 / 1024, s0 / 1024;
    lr = median(load["redis"]); ls = median(load["spinel"]);
    printf "| redis-cli --pipe load (keys/s) | %.0f | %.0f | %.2f |\n", lr, ls, (lr > 0 ? ls / lr : 0)
  }' "$OUT/memory.tsv"
fi
if [ -s "$OUT/idle.tsv" ]; then
  echo
  echo "| $IDLE_CONNS idle connections | Redis | Spinel | ratio |"
  echo "|---|---:|---:|---:|"
  awk -F'\t' -v n="$IDLE_CONNS" -v settle="$SETTLE_SECONDS" '{ grow[$1] = ($3 - $2) * 1024 / n; rss[$1] = $3 / 1024; rss1[$1] = $4 / 1024 }
    END { printf "| RSS with the connections open (MB) | %.1f | %.1f | %.2f |\n", rss["redis"], rss["spinel"], rss["spinel"] / rss["redis"];
          printf "| the same %d s later (MB) | %.1f | %.1f | %.2f |\n", settle + 2, rss1["redis"], rss1["spinel"], rss1["spinel"] / rss1["redis"];
          printf "| RSS growth per connection (bytes) | %.0f | %.0f | %.2f |\n", grow["redis"], grow["spinel"],
            (grow["redis"] > 0 ? grow["spinel"] / grow["redis"] : 0) }' "$OUT/idle.tsv"
fi
cat "$OUT/grpc-report.md"
echo
echo "Spinel JVM options: ${SPINEL_JAVA_OPTS:-the default of bin/spinel-server}"
echo "Spinel arguments: ${SPINEL_ARGS:-(none)}; $(grep -h -o 'transport=[a-z_]*' "$OUT"/spinel-*.log 2>/dev/null | sort -u | tr '\n' ' ')"
echo "Raw results: $OUT/memtier.tsv, $RESULTS, $OUT/load.tsv, $OUT/mem.tsv, $OUT/memory.tsv and $OUT/perkey.tsv"
