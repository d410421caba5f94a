#!/usr/bin/env bash
# Runs units of Redis 7.0.15's Tcl suite that start their own servers (tests/integration/replication*.tcl,
# psync2*.tcl, block-repl.tcl..., and unit/ files whose tests are tagged external:skip) with Spinel in place of
# redis-server: src/redis-server of a copy of the suite becomes a wrapper that starts Spinel with the config file
# the suite wrote. Prints one line per unit.
#
# Usage: tools/redis-tcl-spawned.sh integration/replication-4 unit/acl [unit ...]
# Tests listed in tools/redis-tcl-spawned.skip (with the reason each cannot run on Spinel) are skipped.
# Environment:
#   SUITE_SRC   a suite fetched by tools/redis-tcl-suite.sh (default /tmp/redis-tcl-suite; run that script once
#               with unit/printver to fetch it)
#   SUITE_DIR   the copy this script prepares and runs (default /tmp/redis-tcl-spawned)
#   BASEPORT    first port of the servers the suite starts (default 25100; it uses up to PORTCOUNT above it)
#   PORTCOUNT   how many ports from BASEPORT the suite may use (default 800; cluster units also use each
#               server's port + 10000 as its bus port)
#   UNIT_TIMEOUT seconds per unit (default 1800)
#   TLS         1: the suite's --tls mode (servers listen on tls-port only, clients connect with TLS; needs Tcl's tls
#               package, Debian's tcl-tls): the test certificates are made in SUITE_DIR/tests/tls as Redis's
#               utils/gen-test-certs.sh makes them, and the wrapper drops tls-dh-params-file and tls-cluster (the
#               JDK picks its DH groups; Spinel's cluster bus has no TLS), logging each, as it drops unixsocket
#   MIXED       mixed pairs, Spinel beside the real /usr/bin/redis-server (default: every server is Spinel):
#               master-redis   a server started while no other server of the unit runs (the outermost start_server,
#                              the master of most tests) is redis-server, the servers nested in it are Spinel;
#               master-spinel  the reverse: the outermost is Spinel, the nested ones redis-server.
#               A server keeps its kind across restart_server (recorded beside its config file as <conf>.mixed-kind);
#               each server's stderr starts with a "[mixed] <kind>" line. Tests that swap roles (e.g. the nested
#               server becomes the master) run with the other pairing, so the two modes cover both directions.
# Tests listed in tools/redis-tcl-spawned.skip (with the reason each cannot run with Spinel in place of
# redis-server, e.g. they read the BGSAVE child process Spinel has not) are skipped (the suite's --skipfile).
# The checkout is built (mvn package of spinel-grpc) and its bin/ and spinel-grpc/target/ copied into
# SUITE_DIR/spinel, so editing the checkout during a run does not change the servers the run starts.
# The wrapper drops the directives Spinel refuses (unixsocket, unixsocketperm: Spinel listens on TCP only) from the
# config file in place (so that CONFIG REWRITE changes the file a restart_server uses, as with redis-server),
# logging each on the server's stderr (src/redis-benchmark and src/redis-cli become wrappers that turn the suite's
# -s <unix socket> into that server's TCP port), and prints the " PID: <pid>" line the suite waits for (a line of
# Redis's logo) once Spinel answers PING: the suite gives a server 5 s after that line, less than a JVM
# needs on a loaded machine. A server that exits before answering (a bad RDB or AOF) gets its warnings repeated
# after that line, so that its log ends with the reason, as Redis's (which prints the logo before loading) does.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${SUITE_SRC:-/tmp/redis-tcl-suite}
suite=${SUITE_DIR:-/tmp/redis-tcl-spawned}
baseport=${BASEPORT:-25100}
portcount=${PORTCOUNT:-800}
unit_timeout=${UNIT_TIMEOUT:-1800}
tls=${TLS:-0}
mixed=${MIXED:-}
case "$mixed" in ''|master-redis|master-spinel) ;; *) echo "MIXED must be master-redis or master-spinel" >&2; exit 2;; esac
[ -z "$mixed" ] || [ -x /usr/bin/redis-server ] || { echo "MIXED needs /usr/bin/redis-server" >&2; exit 2; }
[ -f "$src/tests/test_helper.tcl" ] || { echo "no suite in $src: run tools/redis-tcl-suite.sh unit/printver first" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: $0 integration/<unit> | unit/<unit> ..." >&2; exit 2; }

if [ ! -d "$suite/tests" ]; then
  mkdir -p "$suite" && cp -a "$src/tests" "$src/src" "$suite/"
fi
mkdir -p "$suite/logs"
# The suite waits for " PID: <pid>" anywhere in a server's stdout, which a restarted server in the same directory
# shares with the servers before it: once the kernel's PIDs wrap (pid_max 32768; every JVM thread takes one), a new
# server's short PID can be the prefix of an earlier one's (PID 307 matched "PID: 30785") and the suite connects
# before the new server listens ("couldn't open socket: connection refused"). The copy matches whole numbers only.
sed -i 's/regexp -- " PID: \$pid" /regexp -- " PID: $pid\\\\M" /' "$suite/tests/support/server.tcl"
# Tests that cannot apply to Spinel, each with its reason, in tools/redis-tcl-suite.skip (comments dropped here).
grep -v -e '^#' -e '^[[:space:]]*$' "$root/tools/redis-tcl-suite.skip" > "$suite/skip.txt"
export JAVA_HOME=${JAVA_HOME:-$("$root/bin/find-java")}
(cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -B -o -DskipTests -pl spinel-grpc -am package) >&2 \
  || { echo "build failed" >&2; exit 2; }
rm -rf "$suite/spinel" && mkdir -p "$suite/spinel/spinel-grpc"
cp -a "$root/bin" "$suite/spinel/" && cp -a "$root/spinel-grpc/target" "$suite/spinel/spinel-grpc/"
touch "$suite/spinel/spinel-grpc/target/.built-by-bin-spinel-server"

rm -f "$suite/src/redis-server"
cat > "$suite/src/redis-server" <<WRAPPER
#!/usr/bin/env bash
# Written by tools/redis-tcl-spawned.sh: Spinel in place of redis-server for Redis's Tcl suite.
drop='^(unixsocket|unixsocketperm|tls-dh-params-file|tls-cluster)\$'
args=("\$@")
# alive: running, not a zombie (a server that exited at once, e.g. on a refused --user, stays a zombie until the
# suite's exec has read all its output, which this watcher's copy of stdout would hold open)
alive() { local st; st=\$(awk '/^State:/{print \$2}' /proc/\$1/status 2>/dev/null); [ -n "\$st" ] && [ "\$st" != Z ]; }
mixed='$mixed'
if [ -n "\$mixed" ]; then
  # MIXED (tools/redis-tcl-spawned.sh): the outermost server (none of the unit's others running) is one kind, the
  # nested ones the other; a restarted server (same config file) keeps the kind it was given
  kindf=; [ \$# -ge 1 ] && [ -f "\$1" ] && kindf="\$1.mixed-kind"
  if [ -n "\$kindf" ] && [ -f "\$kindf" ]; then
    kind=\$(cat "\$kindf")
  else
    live=0
    for f in "$suite/mixed-live"/*; do
      [ -e "\$f" ] || continue
      if alive "\${f##*/}"; then live=\$((live + 1)); else rm -f "\$f"; fi
    done
    outer=spinel; inner=redis; [ "\$mixed" = master-redis ] && { outer=redis; inner=spinel; }
    kind=\$inner; [ \$live -eq 0 ] && kind=\$outer
    [ -n "\$kindf" ] && echo "\$kind" > "\$kindf"
  fi
  touch "$suite/mixed-live/\$\$"
  echo "[mixed] \$kind (MIXED=\$mixed)" >&2
  [ "\$kind" = redis ] && exec /usr/bin/redis-server "\$@"
fi
sock=
if [ \$# -ge 1 ] && [ -f "\$1" ]; then
  # the unix socket the suite asked for: its TCP port, for the redis-benchmark / redis-cli wrappers (-s <path>)
  sock=\$(awk 'tolower(\$1)=="unixsocket"{p=\$2} END{print p}' "\$1")
  # filtered in place, so that CONFIG REWRITE writes the file the suite restarts the server with
  conf="\$1.spinel-tmp"
  while IFS= read -r line; do
    d=\$(printf '%s' "\$line" | awk '{print tolower(\$1)}')
    if [[ "\$d" =~ \$drop ]]; then
      echo "[spinel wrapper] ignoring directive: \$line" >&2
    else
      printf '%s\n' "\$line"
    fi
  done < "\$1" > "\$conf"
  mv "\$conf" "\$1"
fi
port=\$(awk 'tolower(\$1)=="port"{p=\$2} END{print p}' "\${args[0]}" 2>/dev/null)
tlsping=()
tlsport=\$(awk 'tolower(\$1)=="tls-port"{p=\$2} END{print p}' "\${args[0]}" 2>/dev/null)
if [ -n "\$tlsport" ] && [ "\$tlsport" != 0 ] && [ "\$port" = 0 ]; then
  port=\$tlsport
  tlsping=(--tls --cacert "$suite/tests/tls/ca.crt" --cert "$suite/tests/tls/client.crt" --key "$suite/tests/tls/client.key")
fi
for ((i = 1; i < \${#args[@]}; i++)); do [ "\${args[\$i]}" = "--port" ] && port=\${args[\$((i+1))]}; done
[ -n "\$sock" ] && [ -n "\$port" ] && echo "\$port" > "\$sock.spinel-port"
pid=\$\$
# The watcher is started as a grandchild (the subshell that forks it exits at once and is reaped here), so it is
# never a child of the server: a finished child the JVM does not reap stays a zombie that pgrep -P lists, and the
# suite's get_child_pid (the first of pgrep -P <server>) would find it instead of the save's child process.
( (
  out=\$(readlink /proc/\$\$/fd/1) # the server's stdout (in \$(...) \$BASHPID would be the pipe's)
  before=\$( [ -f "\$out" ] && wc -l < "\$out" || echo 0)
  loading=
  for _ in \$(seq 1 1200); do
    alive "\$pid" || break
    n=\$(wc -l < "\$out" 2>/dev/null || echo 0)
    reply=\$( [ -n "\$port" ] && [ "\$port" != 0 ] && redis-cli "\${tlsping[@]}" -p "\$port" ping 2>/dev/null)
    if grep -q -e PONG -e NOAUTH <<< "\$reply"; then break; fi
    if grep -q LOADING <<< "\$reply"; then loading=\$n; break; fi
    sleep 0.1
  done
  logo="                _._ Spinel under Redis's test suite  PID: \$pid"
  if ! alive "\$pid" && [ -f "\$out" ]; then
    # it exited before answering (a bad RDB or AOF): its lines are moved after the PID line, so that the log
    # ends with the reason as Redis's does (Redis prints the logo before loading; tests read tail -1). Moved, not
    # repeated: tests also count lines ("Terminating server after rdb file reading failure." exactly once). The
    # file is rewritten in place (same inode: the suite appends to it); the server, gone, writes no more.
    tmp=\$(mktemp)
    { head -n "\$before" "\$out"; echo "\$logo"; tail -n +\$((before + 1)) "\$out"; } > "\$tmp"
    cat "\$tmp" > "\$out"
    rm -f "\$tmp"
  else
    echo "\$logo"
    if [ -n "\$loading" ]; then
      # it answered -LOADING (Spinel listens while it loads): if the load then fails, the reason must still end the
      # log, after the PID line, as Redis's does; the PID line is moved back to where the log was when it answered
      while alive "\$pid" && redis-cli -p "\$port" ping 2>/dev/null | grep -q LOADING; do sleep 0.2; done
      if ! redis-cli -p "\$port" ping 2>/dev/null | grep -q -e PONG -e NOAUTH; then # not up: exiting?
        for _ in \$(seq 1 100); do alive "\$pid" || break; sleep 0.1; done
      fi
      if ! alive "\$pid" && [ -f "\$out" ]; then
        tmp=\$(mktemp)
        grep -vxF "\$logo" "\$out" | awk -v n="\$loading" -v logo="\$logo" 'NR == n + 1 { print logo } { print } END { if (NR <= n) print logo }' > "\$tmp"
        cat "\$tmp" > "\$out"
        rm -f "\$tmp"
      fi
    fi
  fi
  if ! alive "\$pid" && [ -f "\$out" ] && grep -q "Address already in use" "\$out"; then
    echo "Failed listening on port \$port (TCP), aborting."
  fi
) & )
# --grpc-port 0 where redis-server's grammar reads it as a line of its own: before the options when they start with
# "--" (after the config file); else last (appended after an option given without a value, it would be read as that
# option's values: "--port --grpc-port 0" is port "--grpc-port" "0"; before a bare word, that word would be its value)
file=(); rest=("\${args[@]}")
if [ \${#args[@]} -gt 0 ] && [ "\${args[0]#-}" = "\${args[0]}" ]; then file=("\${args[0]}"); rest=("\${args[@]:1}"); fi
if [ \${#rest[@]} -eq 0 ] || [ "\${rest[0]#--}" != "\${rest[0]}" ]; then
  exec "$suite/spinel/bin/spinel-server" "\${file[@]}" --grpc-port 0 "\${rest[@]}"
fi
exec "$suite/spinel/bin/spinel-server" "\${args[@]}" --grpc-port 0
WRAPPER
chmod +x "$suite/src/redis-server"

# redis-benchmark and redis-cli: -s <unix socket> becomes -h 127.0.0.1 -p <the port the wrapper above recorded>
for tool in redis-benchmark redis-cli; do
  [ -f "$suite/src/$tool.real" ] || { [ -f "$suite/src/$tool" ] && mv "$suite/src/$tool" "$suite/src/$tool.real"; } \
    || cp "$(command -v $tool)" "$suite/src/$tool.real"
  cat > "$suite/src/$tool" <<TOOL
#!/usr/bin/env bash
# Written by tools/redis-tcl-spawned.sh: Spinel listens on TCP only.
args=()
while [ \$# -gt 0 ]; do
  if [ "\$1" = "-s" ] && [ -f "\$2.spinel-port" ]; then
    args+=(-h 127.0.0.1 -p "\$(cat "\$2.spinel-port")"); shift 2
  else
    args+=("\$1"); shift
  fi
done
exec "$suite/src/$tool.real" "\${args[@]}"
TOOL
  chmod +x "$suite/src/$tool"
done

# Tests Spinel cannot run, with the reasons, in tools/redis-tcl-spawned.skip, added to tools/redis-tcl-suite.skip's
# (written above; comments dropped here). It used to replace them, so corrupt-dump's crash tests were not skipped.
grep -v -e '^#' -e '^[[:space:]]*$' "$root/tools/redis-tcl-spawned.skip" >> "$suite/skip.txt"

tlsarg=()
if [ "$tls" = 1 ]; then
  tlsarg=(--tls)
  certs="$suite/tests/tls"
  if [ ! -f "$certs/redis.key" ]; then
    # as Redis's utils/gen-test-certs.sh: a CA, and a server-only, a client-only and a generic certificate it signed
    mkdir -p "$certs"
    printf '[ server_cert ]\nkeyUsage = digitalSignature, keyEncipherment\nnsCertType = server\n[ client_cert ]\nkeyUsage = digitalSignature, keyEncipherment\nnsCertType = client\n' > "$certs/openssl.cnf"
    openssl genrsa -out "$certs/ca.key" 4096 2>/dev/null
    openssl req -x509 -new -nodes -sha256 -key "$certs/ca.key" -days 3650 -subj '/O=Redis Test/CN=Certificate Authority' -out "$certs/ca.crt"
    for name in server client; do
      openssl genrsa -out "$certs/$name.key" 2048 2>/dev/null
      openssl req -new -sha256 -subj "/O=Redis Test/CN=$name" -key "$certs/$name.key" \
        | openssl x509 -req -sha256 -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -CAserial "$certs/ca.txt" -CAcreateserial \
            -days 365 -extfile "$certs/openssl.cnf" -extensions "${name}_cert" -out "$certs/$name.crt" 2>/dev/null
    done
    openssl genrsa -out "$certs/redis.key" 2048 2>/dev/null
    openssl req -new -sha256 -subj "/O=Redis Test/CN=Generic-cert" -key "$certs/redis.key" \
      | openssl x509 -req -sha256 -CA "$certs/ca.crt" -CAkey "$certs/ca.key" -CAserial "$certs/ca.txt" -CAcreateserial \
          -days 365 -out "$certs/redis.crt" 2>/dev/null
    chmod a+r "$certs"/*.key
  fi
fi

status=0
for u in "$@"; do
  log="$suite/logs/$(echo "$u" | tr / _)${mixed:+.$mixed}.txt"
  rm -rf "$suite/mixed-live" && mkdir -p "$suite/mixed-live"
  (cd "$suite" && timeout "$unit_timeout" tclsh tests/test_helper.tcl --single "$u" --clients 1 "${tlsarg[@]}" \
      --baseport "$baseport" --portcount "$portcount" --skipfile "$suite/skip.txt" > "$log" 2>&1)
  rc=$?
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  ok=$(grep -c '^\[ok\]' <<< "$plain")
  err=$(grep -c '^\[err\]' <<< "$plain")
  skipped=$(grep -c '^\[skip\]' <<< "$plain")
  exc=$(grep -c '^\[exception\]' <<< "$plain")
  if [ $rc -eq 0 ] && grep -q "All tests passed" <<< "$plain"; then
    echo "$u${mixed:+ (MIXED=$mixed)}: passes whole ($ok tests, $skipped skipped)"
  else
    status=1
    echo "$u${mixed:+ (MIXED=$mixed)}: $ok ok, $err failed, $exc exception(s), exit $rc; failed: $(grep -E '^\[(err|exception)\]' <<< "$plain" | cut -c1-200 | tr '\n' ';') (log $log)"
  fi
done
exit $status
