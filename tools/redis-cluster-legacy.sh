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
inst="$suite/tests/instances.tcl"
sed -i -e "s/^set ::redis_base_port 30000\$/set ::redis_base_port $baseport/" \
       -e "s/^set ::redis_port_count 1024\$/set ::redis_port_count $portcount/" \
       -e 's/server_is_up \$::host \$port 100\]/server_is_up $::host $port 1200]/' \
       -e 's/server_is_up 127.0.0.1 \$port 100\]/server_is_up 127.0.0.1 $port 1200]/' "$inst"
sed -i "s/^set ::instances_count 20 /set ::instances_count $instances /" "$suite/tests/cluster/run.tcl"
# the skip list: a test whose name is listed is reported SKIPPED and not run
python3 - "$inst" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = 'proc test {descr code} {\n    set ts [clock format [clock seconds] -format %H:%M:%S]\n'
assert old in s, "instances.tcl: test proc not found"
new = old + ('    if {[info exists ::skip_tests] && [lsearch -exact $::skip_tests $descr] != -1} {\n'
             '        puts "$ts> $descr: SKIPPED (tools/redis-cluster-legacy.skip)"\n'
             '        return\n'
             '    }\n')
s = s.replace(old, new, 1)
open(p, 'w').write(s)
PY
grep -c 'server_is_up [^ ]* \$port 1200\]' "$inst" | grep -qx 3 || { echo "instances.tcl: PING waits not patched" >&2; exit 2; }
grep -q "^set ::redis_base_port $baseport\$" "$inst" || { echo "instances.tcl: base port not patched" >&2; exit 2; }

skipfile="$root/tools/redis-cluster-legacy.skip"
skip_lines=$(grep -v -e '^#' -e '^[[:space:]]*$' "$skipfile")
{
  echo "set ::skip_tests {}"
  while IFS= read -r line; do
    [[ "$line" == *.tcl ]] && continue
    printf 'lappend ::skip_tests {%s}\n' "$line"
  done <<< "$skip_lines"
} > "$suite/tests/cluster/skip-tests.tcl"
sed -i 's|^source ../../support/cluster.tcl ; # Redis Cluster client.$|&\nsource ../skip-tests.tcl|' "$suite/tests/cluster/run.tcl"
grep -q "^source ../skip-tests.tcl$" "$suite/tests/cluster/run.tcl" || { echo "run.tcl: skip list not sourced" >&2; exit 2; }

export JAVA_HOME=${JAVA_HOME:-$("$root/bin/find-java")}
if [ "${NO_BUILD:-0}" != 1 ]; then
  (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -B -o -DskipTests -pl spinel-grpc -am package) >&2 \
    || { echo "build failed" >&2; exit 2; }
fi
mkdir -p "$suite/spinel/spinel-grpc"
cp -a "$root/bin" "$suite/spinel/" && cp -a "$root/spinel-grpc/target" "$suite/spinel/spinel-grpc/"
touch "$suite/spinel/spinel-grpc/target/.built-by-bin-spinel-server"
java_opts=${SPINEL_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms16m -Xmx512m -XX:+UseCompactObjectHeaders}
rm -f "$suite/src/redis-server"
cat > "$suite/src/redis-server" <<WRAPPER
#!/usr/bin/env bash
# Written by tools/redis-cluster-legacy.sh: Spinel in place of redis-server for Redis's legacy cluster suite.
export SPINEL_JAVA_OPTS='$java_opts'
exec "$suite/spinel/bin/spinel-server" "\$@" --grpc-port 0
WRAPPER
chmod +x "$suite/src/redis-server"
[ -x "$suite/src/redis-cli" ] || cp "$(command -v redis-cli)" "$suite/src/redis-cli"

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
rc=$?
plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
status=$rc
for f in "${run[@]}"; do
  part=$(awk -v u="Testing unit: $f.tcl" 'index($0, "Testing unit: ") { on = (index($0, u) > 0) } on' <<< "$plain")
  ok=$(grep -c ': OK$' <<< "$part")
  skipped=$(grep -c ': SKIPPED (' <<< "$part")
  first=$(grep -m1 -E 'FAILED|caught an error|exception' <<< "$part" | cut -c1-300)
  if [ -z "$part" ]; then
    echo "$f: not reached (exit $rc; log $log)"
    status=1
  elif [ -z "$first" ] && [ "$ok" = 0 ] && [ "$skipped" = 0 ]; then
    echo "$f: no test ran (the file's tests are disabled in the suite itself)"
  elif [ -z "$first" ]; then
    echo "$f: passes whole ($ok tests, $skipped skipped)"
  else
    status=1
    echo "$f: $ok ok, $skipped skipped; first failure: $first (log $log)"
  fi
done
exit $status
