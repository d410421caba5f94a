#!/usr/bin/env bash
# Spinel's gRPC service beside etcd 3.5, driven by the same lean client (bench/grpc-bench.sh) with the same
# shape: unary calls with GRPC_INFLIGHT (100) in flight on one connection, 16-byte keys over GRPC_KEYS
# (10000), 32-byte values. The "grpc" part of bench/compare.sh (PARTS=grpc); also runs on its own.
#
#   bench/grpc-compare.sh
#
# Scenarios, each GRPC_SECONDS (10) per run after a 2 s warm-up inside the run, in GRPC_ROUNDS (3) rounds that
# alternate which server goes first:
#   put    spinel.kv.v1.KV/Put          | etcdserverpb.KV/Put
#   get    spinel.kv.v1.KV/Get          | etcdserverpb.KV/Range (linearizable, etcd's default)
#   get-s                               | etcdserverpb.KV/Range serializable=true (no ReadIndex round)
#   batch  spinel.kv.v1.KV/Batch: one stream, GRPC_BATCH_INFLIGHT (8) messages of GRPC_BATCH_SIZE (100) Puts
#          in flight (etcd has no such stream; its Txn is not the same thing)
# Before the rounds each server gets GRPC_WARMUP_SECONDS (20) of Puts and Gets, not counted (the JVM compiles
# its hot paths; on a loaded 2-core machine that takes that long).
# Prints ops/s, p50/p99 ms and ops per server CPU-second (utime+stime of the server process over the measured
# interval, from /proc/PID/stat) for each, medians over the rounds, and the ratios Spinel / etcd.
#
# Servers: Spinel by bin/spinel-server with --save "" and GRPC_SPINEL_ARGS (default "--appendonly yes
# --appendfsync everysec": every write goes through the append-only log, written but not fsynced per
# write); etcd 3.5 (bench/etcd.sh builds it on first use) single member with --unsafe-no-fsync (it writes
# its WAL and bbolt without fsync): both log every write, neither waits for the disk.
# Client: GRPC_CLIENT=raw (default) drives put/get/get-s with RawUnaryBench (raw HTTP/2 frames prepared once per
# key, HPACK-indexed headers, grpc-status checked in each call's trailers: ~2 µs of client CPU per call, against
# ~45 µs for grpc-java's client, which on 2 cores was the bottleneck); GRPC_CLIENT=grpc-java the old client
# (UnaryBench over grpc-java's ClientCall). The batch scenario always runs on the grpc-java client.
# Environment: OUT (directory for results and logs), NO_BUILD=1 (use what is built), SPINEL_JAVA_OPTS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
GRPC_SECONDS=${GRPC_SECONDS:-10}
GRPC_ROUNDS=${GRPC_ROUNDS:-3}
GRPC_INFLIGHT=${GRPC_INFLIGHT:-100}
GRPC_KEYS=${GRPC_KEYS:-10000}
GRPC_BATCH_INFLIGHT=${GRPC_BATCH_INFLIGHT:-8}
GRPC_BATCH_SIZE=${GRPC_BATCH_SIZE:-100}
GRPC_WARMUP_SECONDS=${GRPC_WARMUP_SECONDS:-20}
GRPC_SPINEL_ARGS=${GRPC_SPINEL_ARGS:---appendonly yes --appendfsync everysec}
GRPC_CLIENT=${GRPC_CLIENT:-raw}
OUT=${OUT:-$(mktemp -d /tmp/spinel-grpc-compare.XXXXXX)}
mkdir -p "$OUT"
TSV="$OUT/grpc.tsv"
: > "$TSV"

ETCD=$("$root/bench/etcd.sh")
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel and the gRPC client..." >&2
  (cd "$root" && JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -DskipTests -pl spinel-grpc,spinel-bench -am package >&2)
  touch "$root/spinel-grpc/target/.built-by-bin-spinel-server"
fi

SCRIPT_NAME=grpc-compare.sh
. "$root/bench/lib/ports.sh"
PIDS=()
DATA=$(mktemp -d /tmp/spinel-grpc-data.XXXXXX)
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  rm -rf "$DATA"
}
trap cleanup EXIT
wait_port() { # port pid name
  for _ in $(seq 1 1800); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "grpc-compare.sh: $3 exited (logs in $OUT)" >&2; exit 1; }
    sleep 0.1
  done
  echo "grpc-compare.sh: $3 did not listen on port $1 within 180 s" >&2; exit 1
}

SPINEL_PORT=$(free_port); SPINEL_GRPC=$(free_port)
mkdir -p "$DATA/spinel"
# shellcheck disable=SC2086
"$root/bin/spinel-server" --port "$SPINEL_PORT" --bind 127.0.0.1 --grpc-port "$SPINEL_GRPC" --save "" \
  --dir "$DATA/spinel" $GRPC_SPINEL_ARGS > "$OUT/spinel.log" 2>&1 &
SPINEL_PID=$!; PIDS+=("$SPINEL_PID")
wait_port "$SPINEL_GRPC" "$SPINEL_PID" spinel

ETCD_PORT=$(free_port); ETCD_PEER=$(free_port)
"$ETCD" --name bench --data-dir "$DATA/etcd" --unsafe-no-fsync --log-level warn \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "bench=http://127.0.0.1:$ETCD_PEER" > "$OUT/etcd.log" 2>&1 &
ETCD_PID=$!; PIDS+=("$ETCD_PID")
wait_port "$ETCD_PORT" "$ETCD_PID" etcd

client() { NO_BUILD=1 "$root/bench/grpc-bench.sh" --client "$GRPC_CLIENT" --inflight "$GRPC_INFLIGHT" --keys "$GRPC_KEYS" "$@" 2>> "$OUT/client.log"; }

# run SERVER SCENARIO ROUND ARGS... -> one line in $TSV
run() {
  local server=$1 scenario=$2 round=$3; shift 3
  local line
  line=$(client --seconds "$GRPC_SECONDS" --warmup 2 "$@" | grep '^target=')
  echo "$line" >> "$OUT/client-lines.txt"
  echo "$line" | awk -v s="$server" -v sc="$scenario" -v r="$round" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s, sc, r, v["ops_per_s"], v["p50_ms"], v["p99_ms"], v["p999_ms"],
      v["ops_per_server_cpu_s"], v["client_cpu_s"], v["failed"] }' >> "$TSV"
}

spinel_args=(--target spinel --port "$SPINEL_GRPC" --server-pid "$SPINEL_PID")
etcd_args=(--target etcd --port "$ETCD_PORT" --server-pid "$ETCD_PID")
echo "gRPC warm-up (${GRPC_WARMUP_SECONDS}s per server and call)" >&2
for args in spinel etcd; do
  if [ $args = spinel ]; then a=("${spinel_args[@]}"); else a=("${etcd_args[@]}"); fi
  client --seconds "$GRPC_WARMUP_SECONDS" --warmup 0 --call put "${a[@]}" > /dev/null
  client --seconds "$GRPC_WARMUP_SECONDS" --warmup 0 --call get "${a[@]}" > /dev/null
done
client --seconds "$GRPC_WARMUP_SECONDS" --warmup 0 --call batch --inflight "$GRPC_BATCH_INFLIGHT" \
  --batch-size "$GRPC_BATCH_SIZE" "${spinel_args[@]}" > /dev/null

for round in $(seq 1 "$GRPC_ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="spinel etcd"; else order="etcd spinel"; fi
  for scenario in put get; do
    for s in $order; do
      echo "gRPC round $round: $s $scenario" >&2
      if [ "$s" = spinel ]; then
        run spinel "$scenario" "$round" --call "$scenario" "${spinel_args[@]}"
      else
        run etcd "$scenario" "$round" --call "$scenario" "${etcd_args[@]}"
        if [ "$scenario" = get ]; then run etcd get-s "$round" --call get --serializable "${etcd_args[@]}"; fi
      fi
    done
  done
  echo "gRPC round $round: spinel batch" >&2
  run spinel batch "$round" --call batch --inflight "$GRPC_BATCH_INFLIGHT" --batch-size "$GRPC_BATCH_SIZE" "${spinel_args[@]}"
done

AWK_MEDIAN='function median(list,   a, n, i, j, t) {
  n = split(list, a, " ");
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'
echo
echo "gRPC: Spinel beside etcd $("$ETCD" --version | awk '/etcd Version/ {print $3}') (bench/grpc-bench.sh --client $GRPC_CLIENT, $GRPC_INFLIGHT in flight on one connection, ${GRPC_SECONDS}s per run, medians of $GRPC_ROUNDS rounds; Spinel: $GRPC_SPINEL_ARGS; etcd: --unsafe-no-fsync)"
echo
echo "| call | Spinel ops/s | etcd ops/s | ratio | Spinel p50/p99 ms | etcd p50/p99 ms | Spinel ops/server CPU-s | etcd ops/server CPU-s | CPU ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' "$AWK_MEDIAN"'
  { k = $1 SUBSEP $2; ops[k] = ops[k] " " $4; p50[k] = p50[k] " " $5; p99[k] = p99[k] " " $6; cpu[k] = cpu[k] " " $8; fail[k] += $10 }
  END {
    n = split("put:put get:get get:get-s batch:", rows, " ");
    names["put"] = "Put"; names["get"] = "Get / Range"; names["get-s"] = "Get / Range serializable"; names["batch"] = "Batch of Puts (ops)";
    for (i = 1; i <= n; i++) {
      split(rows[i], se, ":"); s = "spinel" SUBSEP se[1]; e = "etcd" SUBSEP se[2];
      so = median(ops[s]); sc = median(cpu[s]);
      if (se[2] == "") {
        printf "| %s | %.0f | | | %.2f / %.2f | | %.0f | | |\n", names[se[1]], so, median(p50[s]), median(p99[s]), sc
      } else {
        eo = median(ops[e]); ec = median(cpu[e]); label = (se[2] == "get-s") ? names["get-s"] : names[se[1]];
        printf "| %s | %.0f | %.0f | %.2f | %.2f / %.2f | %.2f / %.2f | %.0f | %.0f | %.2f |\n", label, so, eo,
          (eo > 0 ? so / eo : 0), median(p50[s]), median(p99[s]), median(p50[e]), median(p99[e]), sc, ec, (ec > 0 ? sc / ec : 0)
      }
      if (fail[s] + fail[e] > 0) printf "(failed calls: Spinel %d, etcd %d)\n", fail[s], fail[e]
    }
  }' "$TSV"
echo "(CPU ratio: Spinel ops per server CPU-second / etcd's; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "Raw results: $TSV, client lines: $OUT/client-lines.txt"
