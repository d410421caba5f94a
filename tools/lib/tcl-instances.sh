# Shared by tools/redis-cluster-legacy.sh and tools/redis-sentinel-suite.sh: the harness changes both make to a copy
# of Redis's tests/instances.tcl framework (which starts ../../../src/redis-server per instance), Spinel's wrapper
# in place of src/redis-server, and the per-file summary of one run. Source it; every function exits 2 on a patch
# that did not apply (the suite's text changed).

# instances_patch INSTANCES_TCL BASEPORT PORTCOUNT: the base port and port count (hard-coded 30000 and 1024), and the
# 5 s start-up PING wait made 60 s (a JVM among several on two loaded cores needs more).
instances_patch() {
  local inst=$1 baseport=$2 portcount=$3
  sed -i -e "s/^set ::redis_base_port 30000\$/set ::redis_base_port $baseport/" \
         -e "s/^set ::redis_port_count 1024\$/set ::redis_port_count $portcount/" \
         -e 's/server_is_up \$::host \$port 100\]/server_is_up $::host $port 1200]/' \
         -e 's/server_is_up 127.0.0.1 \$port 100\]/server_is_up 127.0.0.1 $port 1200]/' "$inst"
  grep -c 'server_is_up [^ ]* \$port 1200\]' "$inst" | grep -qx 3 || { echo "instances.tcl: PING waits not patched" >&2; exit 2; }
  grep -q "^set ::redis_base_port $baseport\$" "$inst" || { echo "instances.tcl: base port not patched" >&2; exit 2; }
}

# instances_skip INSTANCES_TCL SKIPFILE OUT_TCL: the `test` proc answers SKIPPED for a test named in SKIPFILE (one exact
# name a line; '#' comments, blank lines and *.tcl file names left out), the names written to OUT_TCL as ::skip_tests.
instances_skip() {
  local inst=$1 skipfile=$2 out=$3 label
  label=$(basename "$skipfile")
  python3 - "$inst" "$label" <<'PY'
import sys
p, label = sys.argv[1], sys.argv[2]
s = open(p).read()
old = 'proc test {descr code} {\n    set ts [clock format [clock seconds] -format %H:%M:%S]\n'
assert old in s, "instances.tcl: test proc not found"
new = old + ('    if {[info exists ::skip_tests] && [lsearch -exact $::skip_tests $descr] != -1} {\n'
             '        puts "$ts> $descr: SKIPPED (tools/' + label + ')"\n'
             '        return\n'
             '    }\n')
s = s.replace(old, new, 1)
open(p, 'w').write(s)
PY
  {
    echo "set ::skip_tests {}"
    [ -f "$skipfile" ] && grep -v -e '^#' -e '^[[:space:]]*$' -e '\.tcl$' "$skipfile" | while IFS= read -r line; do
      printf 'lappend ::skip_tests {%s}\n' "$line"
    done
  } > "$out"
}

# instances_spinel ROOT SUITE JAVA_OPTS: builds the checkout (unless NO_BUILD=1), copies it into SUITE/spinel (editing
# the checkout during a run changes nothing) and makes SUITE/src/redis-server exec Spinel with the suite's config file.
instances_spinel() {
  local root=$1 suite=$2 java_opts=$3
  export JAVA_HOME=${JAVA_HOME:-$("$root/bin/find-java")}
  if [ "${NO_BUILD:-0}" != 1 ]; then
    (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -B -o -DskipTests -pl spinel-grpc -am package) >&2 \
      || { echo "build failed" >&2; exit 2; }
  fi
  mkdir -p "$suite/spinel/spinel-grpc"
  cp -a "$root/bin" "$suite/spinel/" && cp -a "$root/spinel-grpc/target" "$suite/spinel/spinel-grpc/"
  touch "$suite/spinel/spinel-grpc/target/.built-by-bin-spinel-server"
  rm -f "$suite/src/redis-server"
  cat > "$suite/src/redis-server" <<WRAPPER
#!/usr/bin/env bash
# Written by tools/lib/tcl-instances.sh: Spinel in place of redis-server for one of Redis's instances suites.
${java_opts:+export SPINEL_JAVA_OPTS='$java_opts'}
exec "$suite/spinel/bin/spinel-server" "\$@" --grpc-port 0
WRAPPER
  chmod +x "$suite/src/redis-server"
  [ -x "$suite/src/redis-cli" ] || cp "$(command -v redis-cli)" "$suite/src/redis-cli"
}

# instances_report LOG RC FILE...: one line per file from its part of the run's log (the framework jumps to the next
# file after a failed test); returns non-zero when a file failed or was not reached.
instances_report() {
  local log=$1 rc=$2 plain status f part ok skipped first
  shift 2
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  status=$rc
  for f in "$@"; do
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
  return $status
}
