#!/usr/bin/env bash
# Load runner for the gRPC service (spinel.kv.v1.KV): dev.spinel.bench.grpc.LoadRunner.
#   bench/grpc-load.sh [--host 127.0.0.1] [--port 50051] [--embedded] [--mode mixed|batch|counter]
#                      [--seconds 10] [--inflight 100] [--keys 10000] [--value-size 32] [--batch-size 50] [--streams 4]
# Builds spinel-bench first unless NO_BUILD=1 (and it has been built before).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JAVA_HOME=$("$root/bin/find-java")
if [ "${NO_BUILD:-0}" != 1 ] || [ ! -d "$root/spinel-bench/target/lib" ]; then
  (cd "$root" && MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" mvn -q -B -DskipTests -pl spinel-bench -am package) >&2
fi
cp="$root/spinel-bench/target/classes:$root/spinel-bench/target/lib/*"
exec "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -cp "$cp" dev.spinel.bench.grpc.LoadRunner "$@"
