#!/usr/bin/env bash
# Runs go-redis's own Ginkgo suite (TestGinkgoSuite of github.com/redis/go-redis, tag $GO_REDIS) against Spinel and
# against redis-server 7.0, one after the other, and prints the pass/fail counts of each and the specs that fail on
# Spinel but pass on redis-server. Needs go (>= 1.24; modules from the Go proxy or the module cache), git, redis-server.
# Usage: tools/go-redis-suite.sh            GO_REDIS=v9.22.0 by default; GO_REDIS_REPO: where to clone it from.
# The suite expects servers on fixed ports (6379, a MIGRATE target on 6381, rings, sentinels, clusters); this script
# patches its test files to the ports below and runs only the single-server specs: the ring, sentinel, cluster, TLS
# and module (RediSearch, JSON, TimeSeries, Bloom, vector sets) files are skipped (SKIP_FILES), and REDIS_VERSION=7.0
# makes the suite skip the specs of Redis 7.2 and later.
# Ports (default 31000-31001): Spinel, then redis-server, on $PORT; $PORT+1 must be free (MIGRATE's dead target).
# Six specs (withConn, Credentials Provider Priority) dial the default localhost:6379 and fail unless a server is there.
# PROTOCOL=2: the suite's clients speak RESP2 (default 3, go-redis's default). SUBJECT=ap-blocking|ap-async: the
# command specs run through go-redis's autopipeliner (the suite's GOREDIS_TEST_SUBJECT). REDIS_VERSION (default 7.0):
# the version the suite believes it tests (it skips newer specs). SEED (default 1): Ginkgo's order of the specs, the
# same for both servers (some specs leave state behind for others).
# FOCUS: a Ginkgo focus regexp (e.g. FOCUS='ZAdd'); ONLY=spinel|redis: run against one server only.
# Results in $WORK (default /tmp/go-redis-suite): <server>.log (go test output), <server>.json (Ginkgo's report).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${GO_REDIS:-v9.22.0}
repo=${GO_REDIS_REPO:-https://github.com/redis/go-redis}
port=${PORT:-31000}
target_port=$((port + 1))
work=${WORK:-/tmp/go-redis-suite}
skip_files=${SKIP_FILES:-'(json|osscluster[a-z_]*|probabilistic|ring[a-z_]*|search[a-z_]*|sentinel|timeseries[a-z_]*|tls[a-z_]*|vectorset[a-z_]*|universal)_test\.go'}
# Specs in the other files that need a cluster, a ring or a sentinel.
skip=${SKIP:-'cluster races'}
mkdir -p "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

src="$work/go-redis-$tag"
[ -d "$src" ] || { git clone -q "$repo" "$src" && git -C "$src" checkout -q "$tag"; }
# patch: the suite's servers are on fixed ports; point them at ours (the MIGRATE spec wants nothing listening on
# its target port: it expects "IOERR error or timeout writing to target instance"). Both servers run on $port, one after the other,
# so that the suite is compiled once.
# BeforeSuite also connects to rings, sentinels and clusters; GOREDIS_SINGLE (set below) turns that off, the specs
# that need them are in the skipped files. Its clients speak RESP3 (go-redis's default); GOREDIS_PROTOCOL=2
# (PROTOCOL below) makes them speak RESP2.
patch() {
  git -C "$src" checkout -q -- .
  (cd "$src" && sed -i -e "s/6379\"/$port\"/g" -e "s/redisSecondaryPort = \"6381\"/redisSecondaryPort = \"$target_port\"/" \
    -e 's/if !RECluster {/if !RECluster \&\& os.Getenv("GOREDIS_SINGLE") == "" {/' ./*_test.go)
  sed -i 's/^\t\tDB:   0,$/\t\tDB:   0, Protocol: func() int { p, _ := strconv.Atoi(os.Getenv("GOREDIS_PROTOCOL")); return p }(),/' \
    "$src/main_test.go"
}

await_ping() {
  for _ in $(seq 1 1200); do [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ] && return 0; sleep 0.1; done
  echo "port $1 did not answer" >&2; exit 1
}

# run <name> <command...>: starts the server (on $port), runs the suite against it, stops the server.
run() {
  local name=$1; shift
  rm -f "$work/$name.json"
  for p in "$port" "$target_port"; do
    redis-cli -p "$p" PING > /dev/null 2>&1 && { echo "port $p is taken" >&2; exit 1; }
  done
  "$@" > "$work/$name-server.log" 2>&1 &
  local pid=$!
  pids+=($pid)
  await_ping "$port"
  (cd "$src" && GOREDIS_SINGLE=1 GOREDIS_PROTOCOL=${PROTOCOL:-3} \
    GOREDIS_TEST_SUBJECT=${SUBJECT:-} REDIS_VERSION=${REDIS_VERSION:-7.0} go test -count=1 -timeout 60m -run TestGinkgoSuite . \
    -args -ginkgo.skip-file="$skip_files" -ginkgo.skip="$skip" -ginkgo.seed="${SEED:-1}" -ginkgo.no-color \
    -ginkgo.json-report="$work/$name.json" ${FOCUS:+-ginkgo.focus="$FOCUS"} > "$work/$name.log" 2>&1) || true
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$name: $(grep -E '^Ran [0-9]+ of' "$work/$name.log" || echo 'no summary') $(grep -E 'Passed \|' "$work/$name.log" | tail -1)"
}

patch
[ "${ONLY:-}" = redis ] || run spinel "$root/bin/spinel-server" --port "$port" --grpc-port 0 --save "" --enable-debug-command yes
[ "${ONLY:-}" = spinel ] || run redis redis-server --port "$port" --save "" --appendonly no --enable-debug-command yes --dir "$work"
[ -f "$work/spinel.json" ] && [ -f "$work/redis.json" ] || exit 0
python3 - "$work/spinel.json" "$work/redis.json" <<'PY'
import json, sys
def states(path):
    out = {}
    for suite in json.load(open(path)):
        for s in suite.get("SpecReports") or []:
            name = " ".join(s.get("ContainerHierarchyTexts") or []) + " " + s.get("LeafNodeText", "")
            out[name.strip()] = s["State"]
    return out
spinel, redis = states(sys.argv[1]), states(sys.argv[2])
ok = ("passed", "skipped", "pending")
only = sorted(n for n, st in spinel.items() if st not in ok and redis.get(n) == "passed")
print(f"failing on Spinel, passing on redis-server: {len(only)}")
for n in only: print("  " + n)
other = sorted(n for n, st in redis.items() if st not in ok and spinel.get(n) == "passed")
print(f"failing on redis-server, passing on Spinel: {len(other)}")
for n in other: print("  " + n)
PY
