#!/usr/bin/env bash
# Runs the JMH micro-benchmarks: bench/jmh.sh [benchmark regex] [JMH options, e.g. -prof gc]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export JAVA_HOME=$("$root/bin/find-java")
(cd "$root" && MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" mvn -q -B -DskipTests -pl spinel-bench -am package)
cp="$root/spinel-bench/target/classes:$root/spinel-bench/target/lib/*"
exec "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED \
  -cp "$cp" org.openjdk.jmh.Main "${@:-.*}"
