#!/usr/bin/env bash
# Runs Redis 7.0.15's Sentinel suite (tests/sentinel/, what `./runtest-sentinel` runs) with Spinel in place of the
# monitored redis-server instances; the sentinels stay Redis's own redis-sentinel 7.0.15 (Spinel is not a sentinel).
# One run of the suite for the files given (the instances start once). Prints one line per file.
#
# Usage: tools/redis-sentinel-suite.sh [00-base 01-conf-update ...]   (default: every file of tests/sentinel/tests)
# Environment:
#   SUITE_SRC   a suite fetched by tools/redis-tcl-suite.sh (default /tmp/redis-tcl-suite)
#   SUITE_DIR   the copy this script prepares and runs (default /tmp/redis-sentinel-suite)
#   BASEPORT    first port of the Spinel instances (default 24200); the sentinels use SENTINEL_BASEPORT (24300)
#   PORTCOUNT   how many ports from each base the suite may use (default 50)
#   FILE_TIMEOUT seconds for the whole run (default 3600)
#   NO_BUILD    1: use the checkout's spinel-grpc/target as it is (built by `mvn -pl spinel-grpc -am package`)
# The copy differs from the suite in harness lines only, as tools/redis-cluster-legacy.sh's (base ports, port count,
# the 5 s start-up PING wait made 60 s for a JVM, here and in 12-master-reboot's own copy of it); src/redis-server execs Spinel with the config file the suite wrote,
# src/redis-sentinel is /usr/bin/redis-sentinel. Tests that cannot apply are listed in tools/redis-sentinel-suite.skip.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${SUITE_SRC:-/tmp/redis-tcl-suite}
suite=${SUITE_DIR:-/tmp/redis-sentinel-suite}
baseport=${BASEPORT:-24200}
sentinel_baseport=${SENTINEL_BASEPORT:-24300}
portcount=${PORTCOUNT:-50}
file_timeout=${FILE_TIMEOUT:-3600}
[ -f "$src/tests/sentinel/run.tcl" ] || { echo "no sentinel suite in $src (tests/sentinel/run.tcl)" >&2; exit 2; }
command -v redis-sentinel >/dev/null || { echo "redis-sentinel not found (apt-get install redis-sentinel)" >&2; exit 2; }

rm -rf "$suite" && mkdir -p "$suite/logs" && cp -a "$src/tests" "$src/src" "$suite/"
. "$root/tools/lib/tcl-instances.sh"
inst="$suite/tests/instances.tcl"
instances_patch "$inst" "$baseport" "$portcount"
sed -i "s/^set ::sentinel_base_port 20000\$/set ::sentinel_base_port $sentinel_baseport/" "$inst"
grep -q "^set ::sentinel_base_port $sentinel_baseport\$" "$inst" || { echo "instances.tcl: sentinel base port not patched" >&2; exit 2; }
# 12-master-reboot restarts the master with its own copy of the start-up wait (5 s): the same 60 s as instances.tcl's
sed -i 's/server_is_up 127.0.0.1 \$port 100\] == 0/server_is_up 127.0.0.1 $port 1200] == 0/' "$suite/tests/sentinel/tests/12-master-reboot.tcl"
grep -q 'server_is_up 127.0.0.1 \$port 1200\] == 0' "$suite/tests/sentinel/tests/12-master-reboot.tcl" \
  || { echo "12-master-reboot.tcl: start-up wait not patched" >&2; exit 2; }
skipfile="$root/tools/redis-sentinel-suite.skip"
skip_lines=$( [ -f "$skipfile" ] && grep -v -e '^#' -e '^[[:space:]]*$' "$skipfile" || true)
instances_skip "$inst" "$skipfile" "$suite/tests/sentinel/skip-tests.tcl"
sed -i 's|^source ../instances.tcl$|&\nsource ../skip-tests.tcl|' "$suite/tests/sentinel/run.tcl"
grep -q "^source ../skip-tests.tcl$" "$suite/tests/sentinel/run.tcl" || { echo "run.tcl: skip list not sourced" >&2; exit 2; }
instances_spinel "$root" "$suite" ""
rm -f "$suite/src/redis-sentinel"
ln -s "$(command -v redis-sentinel)" "$suite/src/redis-sentinel"

if [ $# -eq 0 ]; then
  set -- $(cd "$suite/tests/sentinel/tests" && ls *.tcl | sed 's/\.tcl$//')
fi
singles=()
run=()
for f in "$@"; do
  f=${f%.tcl}
  if grep -qxF "$f.tcl" <<< "$skip_lines"; then
    echo "$f: skipped (tools/redis-sentinel-suite.skip)"
    continue
  fi
  run+=("$f")
  singles+=(--single "*/tests/$f.tcl")
done
[ ${#run[@]} -gt 0 ] || exit 0
log="$suite/logs/run.txt"
(cd "$suite" && timeout "$file_timeout" tclsh tests/sentinel/run.tcl "${singles[@]}" > "$log" 2>&1)
instances_report "$log" $? "${run[@]}"
