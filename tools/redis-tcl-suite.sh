#!/usr/bin/env bash
# Runs units of Redis 7.0.15's own Tcl test suite against Spinel in external-server mode, each unit against a
# freshly started Spinel (a busy script or data left by one unit must not spoil the next), and prints a
# per-unit summary: passed / failed tests (named) / where a unit stopped.
#
# Usage: tools/redis-tcl-suite.sh [unit/name ...]      (no argument: every unit that can run externally)
# Tests listed in tools/redis-tcl-suite.skip (with the reason each cannot run against Spinel) are skipped.
# Environment:
#   SUITE_DIR     scratch dir holding tests/ of redis 7.0.15 (default /tmp/redis-tcl-suite; filled on first use
#                 from the Debian source package; when apt's sources have no deb-src line, the script adds
#                 Debian bookworm's in /etc/apt/sources.list.d/redis-tcl-suite-src.sources, as root or via sudo)
#   PORT          Spinel's port (default 25000; the suite also uses a few ports above it)
#   UNIT_TIMEOUT  seconds before a unit is stopped (default 900)
#   TAGS          extra tag filters for the suite (default none: the needs:repl tests read Spinel's replication stream too)
#   LOOPS         Spinel's event-loop-threads for every unit (default: 1 for the units in $ordered_units below,
#                 the server's default, one per core, for the others)
#   SPINEL_SERVER the start script to run (default bin/spinel-server of this checkout, which rebuilds when
#                 sources changed; to keep editing during a long run, copy bin/ and spinel-grpc/target/ of a
#                 built checkout to another directory and point this at its bin/spinel-server)
# Exit status: 0 when every unit run passes whole, 1 otherwise.
# Needs tclsh (apt-get install tcl), redis-server/redis-cli 7.0.15 in PATH (the suite starts helpers from src/).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
server=${SPINEL_SERVER:-$root/bin/spinel-server}   # another build of Spinel to run, e.g. a copy that edits do not touch
suite=${SUITE_DIR:-/tmp/redis-tcl-suite}
port=${PORT:-25000}
unit_timeout=${UNIT_TIMEOUT:-900}
tags=${TAGS-}

all_units="unit/printver unit/dump unit/auth unit/protocol unit/keyspace unit/scan unit/info unit/info-command
  unit/type/string unit/type/incr unit/type/list unit/type/list-2 unit/type/list-3 unit/type/set unit/type/zset
  unit/type/hash unit/type/stream unit/type/stream-cgroups unit/sort unit/expire unit/other unit/multi unit/quit
  unit/aofrw unit/acl unit/acl-v2 unit/latency-monitor unit/pubsub unit/pubsubshard unit/slowlog unit/scripting
  unit/functions unit/maxmemory unit/introspection unit/introspection-2 unit/limits unit/obuf-limits unit/bitops
  unit/bitfield unit/geo unit/memefficiency unit/hyperloglog unit/lazyfree unit/wait unit/pause unit/querybuf
  unit/pendingquerybuf unit/tls unit/tracking unit/oom-score-adj unit/shutdown unit/networking
  unit/client-eviction unit/violations unit/replybufsize"

# Units with tests that send a blocking command on one connection and, without waiting for it to block, the
# write that serves it on another (e.g. "$rd XREADGROUP ... BLOCK 0" then "r SET mystream val1"). Redis runs
# them in the order their bytes arrived, on its one thread; Spinel's connections live on different event
# loops, and on a loaded machine the second connection's loop may run the write first. With one event loop
# Spinel too reads ready sockets in arrival order, so these units run with one (docs/compatibility.md).
ordered_units="unit/type/list unit/type/stream unit/type/stream-cgroups"

# A fresh Debian machine lists only binary (deb) sources, and apt-get source needs deb-src ones: add them for
# Debian bookworm (the release whose redis package is 7.0.15) in their own file, then refresh apt's index.
deb_src_file=/etc/apt/sources.list.d/redis-tcl-suite-src.sources
ensure_deb_src() {
  grep -rqsE --include='*.list' --include='*.sources' '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "No deb-src source in apt's sources: adding $deb_src_file (Debian bookworm) and running apt-get update" >&2
  $sudo tee "$deb_src_file" >/dev/null <<'SOURCES' || { echo "could not write $deb_src_file" >&2; exit 2; }
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  $sudo apt-get update >/dev/null 2>&1 || { echo "apt-get update failed after adding $deb_src_file" >&2; exit 2; }
}

fetch_suite() {
  [ -f "$suite/tests/test_helper.tcl" ] && return 0
  echo "Fetching Redis 7.0.15's test suite into $suite ..." >&2
  mkdir -p "$suite/download"
  ensure_deb_src
  (cd "$suite/download" && apt-get source --download-only redis >/dev/null 2>&1) || {
    echo "apt-get source redis failed: add deb-src lines for bookworm to apt's sources and run apt-get update" >&2
    exit 2
  }
  orig=$(ls "$suite"/download/redis_7.0.15.orig.tar.gz 2>/dev/null) || { echo "no redis 7.0.15 source in $suite/download" >&2; exit 2; }
  tar xzf "$orig" -C "$suite" --strip-components=1 redis-7.0.15/tests
  # The suite runs its helpers (redis-cli, redis-benchmark, ...) from src/.
  mkdir -p "$suite/src"
  for b in redis-server redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
    p=$(command -v "$b") && ln -sf "$p" "$suite/src/$b"
  done
}

spinel_pid=""
stop_spinel() {
  if [ -n "$spinel_pid" ]; then
    kill "$spinel_pid" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$spinel_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$spinel_pid" 2>/dev/null
    wait "$spinel_pid" 2>/dev/null
    spinel_pid=""
  fi
}
trap stop_spinel EXIT

start_spinel() {
  local dir=$1 loops=$2
  mkdir -p "$dir"
  "$server" --port "$port" --bind 127.0.0.1 --grpc-port 0 --dir "$dir" --save "" \
    --enable-debug-command yes --event-loop-threads "$loops" > "$dir/spinel.log" 2>&1 &
  spinel_pid=$!
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && return 0
    kill -0 "$spinel_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "Spinel did not start; see $dir/spinel.log" >&2
  return 1
}

fetch_suite
# Build once up front (bin/spinel-server rebuilds when sources changed) so a unit's clock starts with the server.
"$server" --version >/dev/null 2>&1 || true
units=${*:-$all_units}
mkdir -p "$suite/logs"
# Tests an external Spinel cannot run, with the reasons, in tools/redis-tcl-suite.skip (comments dropped here).
grep -v -e '^#' -e '^[[:space:]]*$' "$(dirname "$0")/redis-tcl-suite.skip" > "$suite/skip.txt"
summary=()
status=0
for unit in $units; do
  name=${unit//\//_}
  log="$suite/logs/$name.log"
  loops=${LOOPS:-0}
  if [ -z "${LOOPS:-}" ] && [[ " $ordered_units " == *" $unit "* ]]; then
    loops=1
  fi
  start_spinel "$suite/run/$name" "$loops" || { summary+=("$unit: Spinel did not start"); continue; }
  # TERM=dumb: no colour codes in the log. The suite's own control port and any server it spawns (units
  # that start a second server) stay in ports above $port.
  (cd "$suite" && TERM=dumb timeout "$unit_timeout" tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" \
    --baseport $((port + 64)) --portcount 256 --single "$unit" --clients 1 --tags "$tags" --skipfile "$suite/skip.txt" --timeout 600) > "$log" 2>&1
  rc=$?
  stop_spinel
  ok=$(grep -c '^\[ok\]' "$log")
  skipped=$(grep -c '^\[skip\]' "$log")
  failed=$(grep -E '^\[(err|exception)\]' "$log" | sed -E 's/^\[(err|exception)\]: //' | paste -sd ';' -)
  nfailed=$(grep -cE '^\[(err|exception)\]' "$log")
  if grep -q 'All tests passed without errors' "$log"; then
    result="passes whole ($ok tests, $skipped skipped)"
  elif [ $rc -eq 124 ]; then
    result="timed out after ${unit_timeout}s ($ok ok, $nfailed failed: $failed)"
  elif grep -q '^\[exception\]' "$log"; then
    # The test the exception stopped is the last one the suite announced (its "[testing]" is not printed;
    # the Tcl stack names it in a 'test {...}' line).
    where=$(grep -m1 -A200 '^\[exception\]' "$log" | grep -m1 -oE '^"test \{[^}]*\}' | sed 's/^"test //')
    result="stops at an exception ($ok ok, $((nfailed - 1)) failed before it) in test $where: $failed"
  else
    result="$ok ok, $nfailed failed: $failed"
  fi
  summary+=("$unit: $result")
  case $result in passes\ whole*) ;; *) status=1 ;; esac
  echo "$unit: $result"
done
echo
echo "Summary (logs in $suite/logs):"
printf '  %s\n' "${summary[@]}"
exit $status
