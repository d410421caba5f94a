#!/usr/bin/env bash
# Runs Jedis's own test suite (its standalone command, connection, pipelining, transaction and client-side-cache
# tests) against Spinel and against redis-server 7.0.15, and prints the counts and the tests that fail on Spinel
# but not on redis-server. Exit status 1 when there are such tests.
# Usage: JEDIS_GIT=<a git directory of Jedis> tools/jedis-suite.sh
#   JEDIS_GIT    a clone (or bare mirror) of Jedis's repository; JEDIS_TAG (default v5.2.0) is checked out from it
#                into a scratch directory. The first run needs Maven Central for Jedis's test dependencies.
#   BASE_PORT    first of 6 ports (default 30000): Spinel on BASE, BASE+2, BASE+4; redis-server on BASE+1, +3, +5.
#   JEDIS_JAVA_HOME  the JDK that builds and runs Jedis's tests (default: the installed JDK 17; Jedis targets Java 8
#                and its Mockito 4 does not run on JDK 25). Spinel itself runs on the JDK bin/find-java finds.
# The three servers of each side are what Jedis's endpoints.json names (Jedis's Makefile starts them on 6379...):
# "standalone0" (requirepass foobared, user acljedis), "standalone1" (requirepass foobared) and
# "standalone7-with-lfu-policy" (maxmemory-policy allkeys-lfu). Cluster, Sentinel, replication (standalone2..6, 9,
# 10), TLS and module (RediSearch, JSON, TimeSeries, Bloom) tests are not run. Tests of Redis 7.2+ features
# (CLIENT SETINFO, WAITAOF, HEXPIRE, ZRANK WITHSCORE, ...) run and fail on both sides: only a difference counts.
# AccessControlListCommandsTest opens `new Jedis()` (localhost:6379) in four tests: the scratch copy is edited to
# open standalone0's address instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${JEDIS_GIT:?set JEDIS_GIT to a git directory of Jedis (e.g. a mirror of redis/jedis)}"
tag=${JEDIS_TAG:-v5.2.0}
base=${BASE_PORT:-30000}
jdk=${JEDIS_JAVA_HOME:-$(ls -d /usr/lib/jvm/java-17-openjdk* 2>/dev/null | head -1)}
work=$(mktemp -d /tmp/jedis-suite.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
git clone -q "$JEDIS_GIT" "$work/jedis"
git -C "$work/jedis" checkout -q "$tag"
sed -i 's/new Jedis()/new Jedis(endpoint.getHostAndPort())/' \
  "$work/jedis/src/test/java/redis/clients/jedis/commands/jedis/AccessControlListCommandsTest.java"
(cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -B -DskipTests -pl spinel-grpc -am package)

# server <spinel|redis> <port> <config lines...>: a config file in its own directory, the server started from it.
server() {
  local kind=$1 port=$2; shift 2
  mkdir -p "$work/$port"
  { echo "port $port"; echo 'save ""'; echo "appendonly no"; printf '%s\n' "$@"; } > "$work/$port/conf"
  if [ "$kind" = spinel ]; then
    "$root/bin/spinel-server" "$work/$port/conf" --grpc-port 0 --dir "$work/$port" > "$work/$port/log" 2>&1 &
  else
    redis-server "$work/$port/conf" --dir "$work/$port" > "$work/$port/log" 2>&1 &
  fi
  pids+=($!)
}
await_ping() {
  for _ in $(seq 1 1200); do
    redis-cli -p "$1" PING 2>&1 | grep -qE 'PONG|NOAUTH' && return 0; sleep 0.1
  done
  echo "port $1 did not answer" >&2; exit 1
}
for side in 0 1; do
  kind=$([ $side = 0 ] && echo spinel || echo redis)
  server $kind $((base + side)) "requirepass foobared" "user acljedis on allcommands allkeys >fizzbuzz" \
    "enable-debug-command yes" "enable-module-command yes" "client-output-buffer-limit pubsub 256k 128k 5"
  server $kind $((base + 2 + side)) "maxmemory-policy allkeys-lfu"
  server $kind $((base + 4 + side)) "requirepass foobared"
done
for port in $(seq $base $((base + 5))); do await_ping $port; done

# endpoints.json for one side: standalone0 (and its ACL user), standalone1 and the LFU server on that side's ports.
endpoints() {
  python3 - "$work/jedis/src/test/resources/endpoints.json" "$1" > "$work/endpoints-$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); p = int(sys.argv[2])
for name, port in (('standalone0', p), ('standalone0-acl', p), ('standalone7-with-lfu-policy', p + 2), ('standalone1', p + 4)):
    d[name]['endpoints'] = ['redis://localhost:%d' % port]
json.dump(d, sys.stdout, indent=1)
EOF
}
j=redis.clients.jedis
tests="$j.commands.unified.pooled.*Test"
for c in AccessControlList AllKindOfValues BinaryValues Bit Client Control Geo Hashes HyperLogLog List Object \
    PublishSubscribe Scripting Set Slowlog SortedSet Sorting Streams StringValues Transaction Variadic; do
  tests="$tests,$j.commands.jedis.${c}CommandsTest"
done
for c in Bitmap Generic Geospatial Hash Hyperloglog List Scripting ServerManagement Set SortedSet Stream String; do
  tests="$tests,$j.commands.commandobjects.CommandObjects${c}CommandsTest"
done
for c in ACLJedisTest ACLJedisPoolTest JedisTest JedisPoolTest JedisPooledTest PipeliningTest ReliableTransactionTest \
    TransactionV2Test TupleSortedSetTest ConnectionTest UnifiedJedisCustomCommandsTest csc.ClientSideCacheFunctionalityTest \
    csc.JedisPooledClientSideCacheTest csc.AllowAndDenyListCacheableTest csc.VersionTest prefix.JedisPooledPrefixedKeysTest \
    misc.ClientSetInfoConfigTest; do
  tests="$tests,$j.$c"
done
status=0
for side in 0 1; do
  port=$((base + side))
  endpoints $port
  (cd "$work/jedis" && JAVA_HOME=$jdk REDIS_ENDPOINTS_CONFIG_PATH="$work/endpoints-$port.json" \
    mvn -B test -Dmaven.javadoc.skip=true -Djacoco.skip=true -Dtest="$tests" -Dsurefire.failIfNoSpecifiedTests=false \
    > "$work/out-$port.log" 2>&1) || true
  grep -E "^\[ERROR\] redis\.clients\S+ -- " "$work/out-$port.log" | awk '{print $2}' | sort -u > "$work/failed-$port.txt" || true
done
echo "Spinel:       $(grep -E '^\[(ERROR|WARNING|INFO)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$work/out-$base.log" | tail -1)"
echo "redis-server: $(grep -E '^\[(ERROR|WARNING|INFO)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$work/out-$((base + 1)).log" | tail -1)"
only=$(comm -23 "$work/failed-$base.txt" "$work/failed-$((base + 1)).txt")
if [ -n "$only" ]; then echo "Failing on Spinel only:"; echo "$only"; status=1; fi
echo "Logs: $work"
exit $status
