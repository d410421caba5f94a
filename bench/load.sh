#!/usr/bin/env bash
# Pipelined RESP load generator with latency percentiles (HdrHistogram): dev.spinel.bench.load.LoadGenerator.
#   bench/load.sh --port 6379 [--conns 32] [--pipeline 30] [--value-size 256] [--ratio 1:10] [--keys 100000]
#                 [--duration 10] [--warmup 2] [--threads 1] [--host 127.0.0.1]
# Builds spinel-bench first unless NO_BUILD=1 (and it has been built before).
# LOAD_JAVA_OPTS: JVM options of the generator (default -Xmx256m -XX:+UseSerialGC).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JAVA_HOME=$("$root/bin/find-java")
if [ "${NO_BUILD:-0}" != 1 ] || [ ! -d "$root/spinel-bench/target/lib" ]; then
  (cd "$root" && MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" mvn -q -B -DskipTests -pl spinel-bench -am package) >&2
fi
cp="$root/spinel-bench/target/classes:$root/spinel-bench/target/lib/*"
exec "$JAVA_HOME/bin/java" ${LOAD_JAVA_OPTS:--Xmx256m -XX:+UseSerialGC} -cp "$cp" dev.spinel.bench.load.LoadGenerator "$@"
