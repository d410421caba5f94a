#!/usr/bin/env bash
# Runs Redis 7.0.15's legacy cluster suite (tests/cluster/, what `./runtest-cluster` runs) with Spinel in place of
# redis-server: one run of the suite for the files given (the instances start once). Prints one line per file.
#
# Usage: tools/redis-cluster-legacy.sh [00-base 02-failover ...]   (default: every file of tests/cluster/tests)
# Environment:
#   SUITE_SRC   a suite fetched by tools/redis-tcl-suite.sh (default /tmp/redis-tcl-suite)
#   SUITE_DIR   the copy this script prepares and runs (default /tmp/redis-cluster-legacy)
#   BASEPORT    first client port of the instances (default 12000; each also binds port + 10000, its bus port)
#   PORTCOUNT   how many ports from BASEPORT the suite may use (default 200)
#   INSTANCES   how many servers the suite starts (default 20, as run.tcl; every file's init MEETs them all)
#   FILE_TIMEOUT seconds for the whole run (default 7200)
#   NO_BUILD    1: use the checkout's spinel-grpc/target as it is (built by `mvn -pl spinel-grpc -am package`)
#   SPINEL_JAVA_OPTS  the servers' JVM options (default: C1 only and the serial GC, as tools/cluster-isolation.sh:
#               twenty JVMs on a 2-core machine otherwise starve each other's Raft heartbeats)
# Files and tests that cannot apply to Spinel are listed, each with its reason, in tools/redis-cluster-legacy.skip
# (a file name skips the file; a test name, exact, skips that test: the copy's `test` proc answers it "SKIPPED").
#
# The framework (tests/instances.tcl) starts `../../../src/redis-server <conf>` from tests/cluster/tmp and gives
# it 5 s to answer PING (then it tries another port); it talks to it only over TCP and reads its log.txt. The copy
# differs from the suite in three harness lines, nothing a test checks: the base port and port count (hard-coded
# 30000 and 1024 in instances.tcl), the PING wait at start and restart (5 s -> 60 s: a JVM among twenty, on two
# loaded cores, needs more), and the skip list in `test`. src/redis-server execs Spinel with the config file.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${SUITE_SRC:-/tmp/redis-tcl-suite}
suite=${SUITE_DIR:-/tmp/redis-cluster-legacy}
baseport=${BASEPORT:-12000}
portcount=${PORTCOUNT:-200}
instances=${INSTANCES:-20}
file_timeout=${FILE_TIMEOUT:-7200}
[ -f "$src/tests/cluster/run.tcl" ] || { echo "no legacy cluster suite in $src (tests/cluster/run.tcl)" >&2; exit 2; }

rm -rf "$suite" && mkdir -p "$suite/logs" && cp -a "$src/tests" "$src/src" "$suite/"
. "$root/tools/lib/tcl-instances.sh"
inst="$suite/tests/instances.tcl"
instances_patch "$inst" "$baseport" "$portcount"
sed -i "s/^set ::instances_count 20 /set ::instances_count $instances /" "$suite/tests/cluster/run.tcl"
skipfile="$root/tools/redis-cluster-legacy.skip"
skip_lines=$(grep -v -e '^#' -e '^[[:space:]]*$' "$skipfile")
instances_skip "$inst" "$skipfile" "$suite/tests/cluster/skip-tests.tcl"
sed -i 's|^source ../../support/cluster.tcl ; # Redis Cluster client.$|&\nsource ../skip-tests.tcl|' "$suite/tests/cluster/run.tcl"
grep -q "^source ../skip-tests.tcl$" "$suite/tests/cluster/run.tcl" || { echo "run.tcl: skip list not sourced" >&2; exit 2; }
instances_spinel "$root" "$suite" "${SPINEL_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms16m -Xmx512m -XX:+UseCompactObjectHeaders}"

if [ $# -eq 0 ]; then
  set -- $(cd "$suite/tests/cluster/tests" && ls *.tcl | sed 's/\.tcl$//')
fi
# one run of the suite for every file (the instances start once, as in runtest-cluster); each file's result is
# read from its part of the log (the framework jumps to the next file after a failed test)
singles=()
run=()
for f in "$@"; do
  f=${f%.tcl}
  if grep -qxF "$f.tcl" <<< "$skip_lines"; then
    echo "$f: skipped (tools/redis-cluster-legacy.skip)"
    continue
  fi
  run+=("$f")
  singles+=(--single "*/tests/$f.tcl") # a glob on the file's path: the name anchored by its directory and extension
done
[ ${#run[@]} -gt 0 ] || exit 0
log="$suite/logs/run.txt"
(cd "$suite" && timeout "$file_timeout" tclsh tests/cluster/run.tcl "${singles[@]}" > "$log" 2>&1)
instances_report "$log" $? "${run[@]}"
