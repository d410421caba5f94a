#!/usr/bin/env bash
# Where a cluster node's CPU goes under load, against a standalone server's (issue #20, acceptance 5;
# docs/benchmarks.md, "paired per-thread measurement"). Side A: 3 Spinel nodes made one cluster (no replicas). Side B:
# 3 standalone Spinel servers (B_CLUSTER=yes: another cluster, to compare two builds or options). Both run side by side
# and are loaded in turn, PAIRS times, so that the machine's drift hits both alike: one plain memtier per server
# (-t 2 -c 16 --pipeline=30 -d 256 --ratio=1:10 --key-pattern=R:R --key-maximum=100000 --rate-limiting=4500, a
# cluster's keys under a hash tag its node serves, so nothing is redirected), SECS seconds each, after SETTLE seconds.
# For each run it prints the server CPU per request (ns, from /proc/<pid>/task/*/schedstat of the loaded servers) in
# parts: the event loops, ZGC's threads, the JIT, every other thread (DETAIL=1: each thread name above 3 ns).
#
# Environment: ROOT_A, ROOT_B (checkouts whose bin/spinel-server to run; default this one), OPTS_A, OPTS_B (JVM options
# added to bin/spinel-server's defaults), B_CLUSTER (no), PAIRS (5), SECS (20), SETTLE (150), BASEPORT (13100; side B
# at +100), MEMTIER (../shared/tools/memtier.sh), DETAIL. About 2 + PAIRS x 1 minutes after SETTLE. Needs the builds
# made (mvn -DskipTests package -pl spinel-grpc -am), redis-cli, and nothing else loading the machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ROOT_A=${ROOT_A:-$here}
ROOT_B=${ROOT_B:-$ROOT_A}
B_CLUSTER=${B_CLUSTER:-no}
PAIRS=${PAIRS:-5}
SECS=${SECS:-20}
SETTLE=${SETTLE:-150}
BASEPORT=${BASEPORT:-13100}
MEMTIER=${MEMTIER:-$here/../shared/tools/memtier.sh}
DEFAULT_OPTS="-XX:+UseCompactObjectHeaders -XX:+UseZGC -Xms16m -XX:ZUncommitDelay=2 -XX:ZCollectionIntervalMinor=5 -XX:TrimNativeHeapInterval=1000"
work=$(mktemp -d /tmp/spinel-cluster-pairs.XXXXXX)
PIDS_A=()
PIDS_B=()
cleanup() { kill "${PIDS_A[@]}" "${PIDS_B[@]}" 2>/dev/null || true; }
trap cleanup EXIT

# start ROOT OPTS CLUSTER BASE: 3 servers on BASE..BASE+2; their pids on stdout
start() {
  local root=$1 opts=$2 cluster=$3 base=$4 i d
  for i in 0 1 2; do
    d=$(mktemp -d "$work/node.XXXX")
    (cd "$d" && SPINEL_JAVA_OPTS="$DEFAULT_OPTS $opts" exec "$root/bin/spinel-server" --port $((base + i)) --bind 127.0.0.1 \
      --save "" --appendonly no --cluster-enabled "$cluster" --dir "$d" --grpc-port 0 > "$d/log" 2>&1) &
    echo $!
  done
}
mapfile -t PIDS_A < <(start "$ROOT_A" "${OPTS_A:-}" yes "$BASEPORT")
mapfile -t PIDS_B < <(start "$ROOT_B" "${OPTS_B:-}" "$B_CLUSTER" $((BASEPORT + 100)))
for p in $BASEPORT $((BASEPORT + 1)) $((BASEPORT + 2)) $((BASEPORT + 100)) $((BASEPORT + 101)) $((BASEPORT + 102)); do
  for _ in $(seq 1 600); do [ "$(redis-cli -p "$p" PING 2>/dev/null)" = PONG ] && continue 2; sleep 0.1; done
  echo "cluster-pairs.sh: the server on $p did not start (see $work)" >&2; exit 1
done
redis-cli --cluster create 127.0.0.1:$BASEPORT 127.0.0.1:$((BASEPORT + 1)) 127.0.0.1:$((BASEPORT + 2)) --cluster-yes > /dev/null
if [ "$B_CLUSTER" = yes ]; then
  redis-cli --cluster create 127.0.0.1:$((BASEPORT + 100)) 127.0.0.1:$((BASEPORT + 101)) 127.0.0.1:$((BASEPORT + 102)) \
    --cluster-yes > /dev/null
fi
sleep 3
# a one-letter hash tag the node on port $1 serves (any, standalone)
tag() {
  local t
  for t in a b c d e f g h i j k l m n o p q r s t u v w x y z; do
    if ! redis-cli -p "$1" GET "{$t}probe" | grep -q MOVED; then echo "$t"; return; fi
  done
  echo "cluster-pairs.sh: no hash tag served on $1" >&2; exit 1
}
TAGS_A=()
TAGS_B=()
for i in 0 1 2; do TAGS_A+=("$(tag $((BASEPORT + i)))"); TAGS_B+=("$(tag $((BASEPORT + 100 + i)))"); done
# load BASE SECONDS TAG0 TAG1 TAG2: the three memtiers at once; the summed ops/s on stdout
load() {
  local base=$1 secs=$2 i mp=()
  shift 2
  local tags=("$@")
  for i in 0 1 2; do
    "$MEMTIER" -s 127.0.0.1 -p $((base + i)) -t 2 -c 16 --pipeline=30 -d 256 --ratio=1:10 --key-pattern=R:R \
      --key-maximum=100000 --hide-histogram --rate-limiting=4500 --key-prefix "{${tags[$i]}}memtier-" \
      --test-time="$secs" > "$work/memtier-$i.log" 2>&1 &
    mp+=($!)
  done
  wait "${mp[@]}"
  grep -h "Totals" "$work"/memtier-*.log | awk '{s += $2} END {printf "%d", s}'
}
# snap PID...: "pid tid name ns-on-cpu" per thread
snap() {
  local p t
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      echo "$p $(basename "$t") $(tr ' ' _ < "$t/comm" | cut -c1-11) $(cut -d' ' -f1 "$t/schedstat")"
    done
  done
}
load "$BASEPORT" 30 "${TAGS_A[@]}" > /dev/null
load $((BASEPORT + 100)) 30 "${TAGS_B[@]}" > /dev/null
sleep "$SETTLE"
for k in $(seq 1 "$PAIRS"); do
  for side in A B; do
    if [ "$side" = A ]; then base=$BASEPORT; pids=("${PIDS_A[@]}"); tags=("${TAGS_A[@]}")
    else base=$((BASEPORT + 100)); pids=("${PIDS_B[@]}"); tags=("${TAGS_B[@]}"); fi
    snap "${pids[@]}" > "$work/before"
    ops=$(load "$base" "$SECS" "${tags[@]}")
    snap "${pids[@]}" > "$work/after"
    awk -v S="$SECS" -v O="$ops" -v side="$side" -v k="$k" -v detail="${DETAIL:-}" '
      NR == FNR { a[$1 " " $2] = $4; next }
      { d = $4 - a[$1 " " $2]; n = $3
        if (n ~ /^[0-9a-f]+$/ && length(n) > 8) n = "raft-group"
        g = n ~ /^spinel-loop/ ? "loop" : n ~ /^Z/ ? "gc" : n ~ /Compiler/ ? "jit" : "other"
        if (d > 0) { s[g] += d; x[n] += d; tot += d } }
      END {
        printf "%s pair %d ops/s %d ns/request total %.0f loops %.0f gc %.0f jit %.0f other %.0f\n", side, k, O,
          tot / O / S, s["loop"] / O / S, s["gc"] / O / S, s["jit"] / O / S, s["other"] / O / S
        if (detail) for (n in x) if (x[n] / O / S > 3) printf "   %6.1f %s\n", x[n] / O / S, n }' "$work/before" "$work/after"
  done
done
cleanup
sleep 2
rm -rf "$work"
