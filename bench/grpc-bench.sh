#!/usr/bin/env bash
# The lean gRPC load client (dev.spinel.bench.grpc.UnaryBench) for Spinel's spinel.kv.v1.KV and etcd's
# etcdserverpb.KV: a fixed window of in-flight calls on one connection; prints ops/s, latency percentiles and
# the server's CPU seconds (--server-pid).
#   bench/grpc-bench.sh [--target spinel|etcd] [--call put|get|batch] --port P [--server-pid PID]
#                       [--seconds 10] [--warmup 2] [--inflight 100] [--keys 10000] [--value-size 32]
#                       [--batch-size 100] [--serializable] [--client grpc-java|raw]
# --client raw: put/get through RawUnaryBench (raw HTTP/2 frames, ~2 µs of client CPU per call; batch stays on
# the grpc-java client).
# Builds spinel-bench first unless NO_BUILD=1 (and it has been built before). The client JVM gets one event
# loop, the C1 compiler only (C2 would spend seconds of the shared cores compiling the client during a short
# run) and a small heap (GRPC_BENCH_JAVA_OPTS overrides), so that it leaves the server the cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JAVA_HOME=$("$root/bin/find-java")
if [ "${NO_BUILD:-0}" != 1 ] || [ ! -d "$root/spinel-bench/target/lib" ]; then
  (cd "$root" && MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" mvn -o -q -B -DskipTests -pl spinel-bench -am package) >&2
fi
cp="$root/spinel-bench/target/classes:$root/spinel-bench/target/lib/*"
export CLK_TCK=$(getconf CLK_TCK)
# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow \
  ${GRPC_BENCH_JAVA_OPTS:--XX:+UseSerialGC -Xms256m -Xmx256m -XX:TieredStopAtLevel=1 -Dio.netty.eventLoopThreads=1} \
  -cp "$cp" dev.spinel.bench.grpc.UnaryBench "$@"
