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
inst="$suite/tests/instances.tcl"
sed -i -e "s/^set ::redis_base_port 30000\$/set ::redis_base_port $baseport/" \
       -e "s/^set ::sentinel_base_port 20000\$/set ::sentinel_base_port $sentinel_baseport/" \
       -e "s/^set ::redis_port_count 1024\$/set ::redis_port_count $portcount/" \
       -e 's/server_is_up \$::host \$port 100\]/server_is_up $::host $port 1200]/' \
       -e 's/server_is_up 127.0.0.1 \$port 100\]/server_is_up 127.0.0.1 $port 1200]/' "$inst"
grep -q "^set ::sentinel_base_port $sentinel_baseport\$" "$inst" || { echo "instances.tcl: sentinel base port not patched" >&2; exit 2; }
# 12-master-reboot restarts the master with its own copy of the start-up wait (5 s): the same 60 s as above
sed -i 's/server_is_up 127.0.0.1 \$port 100\] == 0/server_is_up 127.0.0.1 $port 1200] == 0/' "$suite/tests/sentinel/tests/12-master-reboot.tcl"
grep -q 'server_is_up 127.0.0.1 \$port 1200\] == 0' "$suite/tests/sentinel/tests/12-master-reboot.tcl" \
  || { echo "12-master-reboot.tcl: start-up wait not patched" >&2; exit 2; }
python3 - "$inst" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = 'proc test {descr code} {\n    set ts [clock format [clock seconds] -format %H:%M:%S]\n'
assert old in s, "instances.tcl: test proc not found"
new = old + ('    if {[info exists ::skip_tests] && [lsearch -exact $::skip_tests $descr] != -1} {\n'
             '        puts "$ts> $descr: SKIPPED (tools/redis-sentinel-suite.skip)"\n'
             '        return\n'
             '    }\n')
s = s.replace(old, new, 1)
open(p, 'w').write(s)
PY
skipfile="$root/tools/redis-sentinel-suite.skip"
skip_lines=$( [ -f "$skipfile" ] && grep -v -e '^#' -e '^[[:space:]]*$' "$skipfile" || true)
{
  echo "set ::skip_tests {}"
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    [[ "$line" == *.tcl ]] && continue
    printf 'lappend ::skip_tests {%s}\n' "$line"
  done <<< "$skip_lines"
} > "$suite/tests/sentinel/skip-tests.tcl"
sed -i 's|^source ../instances.tcl$|&\nsource ../skip-tests.tcl|' "$suite/tests/sentinel/run.tcl"
grep -q "^source ../skip-tests.tcl$" "$suite/tests/sentinel/run.tcl" || { echo "run.tcl: skip list not sourced" >&2; exit 2; }

export JAVA_HOME=${JAVA_HOME:-$("$root/bin/find-java")}
if [ "${NO_BUILD:-0}" != 1 ]; then
  (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -B -o -DskipTests -pl spinel-grpc -am package) >&2 \
    || { echo "build failed" >&2; exit 2; }
fi
mkdir -p "$suite/spinel/spinel-grpc"
cp -a "$root/bin" "$suite/spinel/" && cp -a "$root/spinel-grpc/target" "$suite/spinel/spinel-grpc/"
touch "$suite/spinel/spinel-grpc/target/.built-by-bin-spinel-server"
rm -f "$suite/src/redis-server" "$suite/src/redis-sentinel"
cat > "$suite/src/redis-server" <<WRAPPER
#!/usr/bin/env bash
# Written by tools/redis-sentinel-suite.sh: Spinel in place of redis-server for Redis's Sentinel suite.
exec "$suite/spinel/bin/spinel-server" "\$@" --grpc-port 0
WRAPPER
chmod +x "$suite/src/redis-server"
ln -s "$(command -v redis-sentinel)" "$suite/src/redis-sentinel"
[ -x "$suite/src/redis-cli" ] || cp "$(command -v redis-cli)" "$suite/src/redis-cli"

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
  elif [ -z "$first" ]; then
    echo "$f: passes whole ($ok tests, $skipped skipped)"
  else
    status=1
    echo "$f: $ok ok, $skipped skipped; first failure: $first (log $log)"
  fi
done
exit $status
