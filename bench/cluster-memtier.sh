#!/usr/bin/env bash
# Routing cost of cluster mode (issue #20, acceptance 5): memtier_benchmark 2.3.0 --cluster-mode against a cluster of
# 3 primaries, against the summed throughput of the same 3 servers run standalone under the same load, for Spinel
# and for redis-server side by side.
#
#   bench/cluster-memtier.sh           measure: ROUNDS (3) rounds, medians (about 8 minutes a round: the servers settle first)
#   CHECK=1 bench/cluster-memtier.sh   correctness only: a short --cluster-mode run of few requests per server kind;
#                                      fails unless every request was answered, with no MOVED and no ASK
#
# Cluster: 3 nodes on BASEPORT, +1, +2 (bus ports +10000; keep them below the kernel's ephemeral range, 32768),
# made one cluster by redis-cli --cluster create (no replicas), no persistence. Standalone: the same 3 servers without
# cluster-enabled on the same ports. Load: memtier -t 2 -c 16 --pipeline 30, SET:GET 1:10, -d 256, random keys over
# MEMTIER_KEYS (100000) for MEMTIER_SECONDS (10) after a WARMUP_SECONDS (5) warm-up. In cluster mode each memtier
# client holds one connection per primary (32 connections per server); standalone, one memtier process per server
# with the same options, the three run at once (32 connections per server), and their ops/s are summed. memtier's
# own CPU (one process against three) is on the same 2 cores: compare the two kinds' ratios, not only each to 0.9.
# A third mode, "tagged", separates what the cluster costs the servers from what memtier's cluster mode changes in
# the load: the same cluster, but driven as the standalone servers are (one plain memtier per node, 32 connections
# each), every key of a node's memtier under a hash tag that node serves (--key-prefix "{t}memtier-"), so no request
# is redirected and each node sees the standalone run's load shape. tagged/standalone is the servers' cost of
# cluster mode (routing, the Raft group, the cluster's threads); cluster/tagged is memtier's cluster mode (its two
# threads spread each client's pipeline over three connections).
# Beside throughput, requests per second of the three servers' own CPU (user + system from /proc/<pid>/stat over the
# measured run): on a machine whose cores memtier shares, and whose speed varies from hour to hour, that ratio decides.
#
# Environment: SERVERS ("spinel redis"), MODES ("cluster tagged standalone"), ROUNDS, MEMTIER_SECONDS, WARMUP_SECONDS, MEMTIER_KEYS, BASEPORT (21300),
# CHECK, CHECK_REQUESTS (2000 per client), SPINEL_ARGS (more options for every Spinel node, e.g. "--event-loop-threads 1"),
# MEMTIER_ARGS (more memtier options for every run, e.g. "--rate-limiting=4500" to compare at one request rate),
# OUT (raw results; default a temporary directory), NO_BUILD=1,
# MEMTIER (path to memtier_benchmark or its wrapper; default ../shared/tools/memtier.sh), SETTLE_SECONDS (65: every
# measured run starts at least this long after its servers started, warm-up included; see below).
#
# Settling: a Spinel node brought into another node's Raft group by a MEET keeps the groups it was in for 60 s (a merge
# under way may bring it back; docs/cluster.md) and runs their heartbeats meanwhile; `--cluster create` leaves two or
# three groups a node for that minute. The measured run waits it out, so it sees the cluster as it runs from then on;
# redis-server's clusters, and the standalone servers of both kinds, wait the same. A JVM's background work (the crons,
# Raft's heartbeats over gRPC) still runs partly in the interpreter then, and costs less once compiled: an idle Spinel
# node of a cluster spent 40-60 ms of CPU a second at 70-140 s, 25 ms at 240-280 s (docs/benchmarks.md);
# SETTLE_SECONDS=240 measures that steady state (about 25 minutes a round).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SERVERS=${SERVERS:-spinel redis}
MODES=${MODES:-cluster tagged standalone}
ROUNDS=${ROUNDS:-3}
MEMTIER_SECONDS=${MEMTIER_SECONDS:-10}
WARMUP_SECONDS=${WARMUP_SECONDS:-5}
MEMTIER_KEYS=${MEMTIER_KEYS:-100000}
BASEPORT=${BASEPORT:-21300}
CHECK=${CHECK:-0}
CHECK_REQUESTS=${CHECK_REQUESTS:-2000}
SETTLE_SECONDS=${SETTLE_SECONDS:-65}
MEMTIER=${MEMTIER:-$root/../shared/tools/memtier.sh} # from a worktree under /work/wt: MEMTIER=/work/shared/tools/memtier.sh
OUT=${OUT:-$(mktemp -d /tmp/spinel-cluster-memtier.XXXXXX)}
mkdir -p "$OUT"
PORTS=("$BASEPORT" "$((BASEPORT + 1))" "$((BASEPORT + 2))")

for tool in redis-server redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "cluster-memtier.sh: $tool not found" >&2; exit 2; }
done
for p in "${PORTS[@]}"; do
  for q in "$p" "$((p + 10000))"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$q") 2>/dev/null; then echo "cluster-memtier.sh: port $q is in use (set BASEPORT)" >&2; exit 2; fi
  done
done
if [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -f "$root/pom.xml" -DskipTests -pl spinel-grpc -am package >&2
  touch "$root/spinel-grpc/target/.built-by-bin-spinel-server" # bin/spinel-server: built, the three starts do not build
fi

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# start_servers KIND CLUSTER(yes|no): the 3 servers, answering PING
start_servers() {
  local kind=$1 cluster=$2 i dir
  PIDS=()
  for i in 0 1 2; do
    dir=$(mktemp -d "$OUT/$kind-$cluster-$i.XXXXXX")
    if [ "$kind" = redis ]; then
      (cd "$dir" && exec redis-server --port "${PORTS[$i]}" --bind 127.0.0.1 --save "" --appendonly no \
        --cluster-enabled "$cluster" --dir "$dir" --logfile "$dir/log") &
    else
      (cd "$dir" && exec "$root/bin/spinel-server" --port "${PORTS[$i]}" --bind 127.0.0.1 --save "" --appendonly no \
        --cluster-enabled "$cluster" --dir "$dir" --grpc-port 0 ${SPINEL_ARGS:-} > "$dir/log" 2>&1) &
    fi
    PIDS+=("$!")
  done
  for i in 0 1 2; do
    for _ in $(seq 1 1200); do
      [ "$(redis-cli -p "${PORTS[$i]}" PING 2>/dev/null)" = PONG ] && continue 2
      kill -0 "${PIDS[$i]}" 2>/dev/null || break
      sleep 0.1
    done
    echo "cluster-memtier.sh: $kind on ${PORTS[$i]} did not start (see $OUT)" >&2; exit 1
  done
  CREATED=$SECONDS # a standalone server's age counts too: its own background code warms up as the cluster's does
  if [ "$cluster" = yes ]; then
    redis-cli --cluster create "127.0.0.1:${PORTS[0]}" "127.0.0.1:${PORTS[1]}" "127.0.0.1:${PORTS[2]}" --cluster-yes \
      > "$OUT/create-$kind.log" 2>&1 || { echo "cluster-memtier.sh: $kind cluster create failed (see $OUT)" >&2; exit 1; }
    for i in 0 1 2; do
      for _ in $(seq 1 600); do
        redis-cli -p "${PORTS[$i]}" CLUSTER INFO | grep -q '^cluster_state:ok' && continue 2
        sleep 0.1
      done
      echo "cluster-memtier.sh: $kind node ${PORTS[$i]} never reported cluster_state:ok" >&2; exit 1
    done
  fi
}

# cpu_ticks: user + system CPU of the 3 servers so far, in clock ticks (/proc/<pid>/stat fields 14 and 15)
cpu_ticks() {
  local p total=0
  for p in "${PIDS[@]}"; do
    total=$((total + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
  done
  echo "$total"
}

# settle: before the warm-up, so that the measured run starts SETTLE_SECONDS after the servers started at the earliest
settle() {
  local wait=$((SETTLE_SECONDS - WARMUP_SECONDS - (SECONDS - CREATED)))
  if [ "$wait" -gt 0 ]; then sleep "$wait"; fi
}

stop_servers() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}

# shellcheck disable=SC2206 # MEMTIER_ARGS is a list of options
LOAD=(-t 2 -c 16 --pipeline=30 -d 256 --ratio=1:10 --key-pattern=R:R --key-maximum="$MEMTIER_KEYS" --hide-histogram ${MEMTIER_ARGS:-})

# totals JSON -> "ops/s count moved/s ask/s connection-errors"
totals() {
  python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["ALL STATS"]["Totals"]
print("%.0f %d %s %s %d" % (t["Ops/sec"], t["Count"], t.get("MOVED/sec", 0), t.get("ASK/sec", 0), t.get("Connection Errors", 0)))
PY
}

if [ "$CHECK" = 1 ]; then
  status=0
  for kind in $SERVERS; do
    start_servers "$kind" yes
    json="$OUT/check-$kind.json"
    # 2 threads x 16 clients, each CHECK_REQUESTS requests, pipelined: every one must be answered, none redirected
    if ! "$MEMTIER" --cluster-mode -s 127.0.0.1 -p "${PORTS[0]}" -t 2 -c 16 --pipeline=30 -d 256 --ratio=1:10 \
        --key-pattern=R:R --key-maximum="$MEMTIER_KEYS" --hide-histogram -n "$CHECK_REQUESTS" --json-out-file="$json" \
        > "$OUT/check-$kind.log" 2>&1; then
      echo "$kind: memtier failed (see $OUT/check-$kind.log)"; status=1
    else
      read -r ops count moved ask errors <<< "$(totals "$json")"
      expected=$((2 * 16 * CHECK_REQUESTS))
      keys=""
      for p in "${PORTS[@]}"; do keys="$keys $(redis-cli -p "$p" DBSIZE)"; done
      if [ "$count" = "$expected" ] && [ "$errors" = 0 ] \
          && python3 -c "import sys; sys.exit(0 if float('$moved') == 0 and float('$ask') == 0 else 1)"; then
        echo "$kind: ok ($count requests answered, MOVED/s $moved, ASK/s $ask, connection errors 0, keys per primary:$keys)"
      else
        echo "$kind: FAILED ($count of $expected requests, MOVED/s $moved, ASK/s $ask, connection errors $errors;" \
          "see $OUT/check-$kind.log)"; status=1
      fi
    fi
    stop_servers
  done
  exit $status
fi

: > "$OUT/cluster-memtier.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for kind in $SERVERS; do
    for mode in $MODES; do
      echo "round $round: $kind $mode" >&2
      if [ "$mode" = cluster ]; then
        start_servers "$kind" yes
        settle
        "$MEMTIER" --cluster-mode -s 127.0.0.1 -p "${PORTS[0]}" "${LOAD[@]}" --test-time="$WARMUP_SECONDS" \
          > "$OUT/warmup-$kind-$mode-$round.log" 2>&1
        json="$OUT/memtier-$kind-$mode-$round.json"
        cpu0=$(cpu_ticks)
        "$MEMTIER" --cluster-mode -s 127.0.0.1 -p "${PORTS[0]}" "${LOAD[@]}" --test-time="$MEMTIER_SECONDS" \
          --json-out-file="$json" > "$OUT/memtier-$kind-$mode-$round.log" 2>&1
        cpu1=$(cpu_ticks)
        read -r ops count moved _ _ <<< "$(totals "$json")"
      else
        prefix=()
        if [ "$mode" = tagged ]; then
          start_servers "$kind" yes
          for i in 0 1 2; do prefix[$i]="--key-prefix=memtier-"; done
          # a one-letter hash tag each node serves: a GET on a key under it is answered there, not with MOVED
          for i in 0 1 2; do
            for t in a b c d e f g h i j k l m n o p q r s t u v w x y z; do
              if ! redis-cli -p "${PORTS[$i]}" GET "{$t}probe" | grep -q MOVED; then prefix[$i]="--key-prefix={$t}memtier-"; break; fi
            done
          done
        else
          start_servers "$kind" no
          for i in 0 1 2; do prefix[$i]="--key-prefix=memtier-"; done
        fi
        settle
        mt=()
        for i in 0 1 2; do
          "$MEMTIER" -s 127.0.0.1 -p "${PORTS[$i]}" "${prefix[$i]}" "${LOAD[@]}" --test-time="$WARMUP_SECONDS" \
            > "$OUT/warmup-$kind-$mode-$round-$i.log" 2>&1 &
          mt+=("$!")
        done
        for p in "${mt[@]}"; do wait "$p"; done
        mt=()
        cpu0=$(cpu_ticks)
        for i in 0 1 2; do
          "$MEMTIER" -s 127.0.0.1 -p "${PORTS[$i]}" "${prefix[$i]}" "${LOAD[@]}" --test-time="$MEMTIER_SECONDS" \
            --json-out-file="$OUT/memtier-$kind-$mode-$round-$i.json" > "$OUT/memtier-$kind-$mode-$round-$i.log" 2>&1 &
          mt+=("$!")
        done
        for p in "${mt[@]}"; do wait "$p"; done
        cpu1=$(cpu_ticks)
        ops=0; moved=0; count=0
        for i in 0 1 2; do
          read -r o c _ _ _ <<< "$(totals "$OUT/memtier-$kind-$mode-$round-$i.json")"
          ops=$((ops + o)); count=$((count + c))
        done
      fi
      # requests per second of the servers' own CPU (user + system): what decides when memtier shares the cores
      per_cpu=$(python3 -c "print('%.0f' % ($count / max(1, $cpu1 - $cpu0) * $(getconf CLK_TCK)))")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$mode" "$round" "$ops" "$moved" "$per_cpu" >> "$OUT/cluster-memtier.tsv"
      stop_servers
    done
  done
done

echo "memtier_benchmark 2.3.0 (-t 2 -c 16 --pipeline 30, SET:GET 1:10, -d 256, ${MEMTIER_SECONDS}s per run${MEMTIER_ARGS:+, $MEMTIER_ARGS}${SPINEL_ARGS:+; Spinel $SPINEL_ARGS}), 3 primaries"
echo "with --cluster-mode vs the same 3 servers standalone (one memtier each, summed); tagged: the cluster under the"
echo "standalone load (one memtier a node, its keys under a hash tag the node serves); medians of $ROUNDS rounds"
awk -F'\t' '
  function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { ops[$1 "," $2] = ops[$1 "," $2] " " $4; cpu[$1 "," $2] = cpu[$1 "," $2] " " $6
    if ($2 == "cluster") moved[$1] = moved[$1] " " $5; kinds[$1] = 1 }
  END {
    printf "| server | ops/s cluster | ops/s 3 standalone (sum) | ratio | ops/CPU-s cluster | tagged | standalone | CPU ratio | tagged/standalone | cluster/tagged | MOVED/s in cluster runs |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    for (k in kinds) { c = median(ops[k ",cluster"]); s = median(ops[k ",standalone"])
      cc = median(cpu[k ",cluster"]); ct = median(cpu[k ",tagged"]); cs = median(cpu[k ",standalone"])
      printf "| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |%s |\n", k, c, s, (s > 0 ? c / s : 0), cc, ct, cs,
        (cs > 0 ? cc / cs : 0), (cs > 0 ? ct / cs : 0), (ct > 0 ? cc / ct : 0), moved[k] }
  }' "$OUT/cluster-memtier.tsv"
echo "Raw results: $OUT/cluster-memtier.tsv"
