# Shared by the six-node cluster scripts (tools/cluster-clients.sh, tools/cluster-reshard-under-load.sh): source it
# after setting `root` (the checkout) and PORTS.

# check_free_ports BUS_OFFSET: exits 2 when a node's port or its bus port (port + BUS_OFFSET) is taken
check_free_ports() {
  local offset=$1 p q
  for p in "${PORTS[@]}"; do
    for q in "$p" "$((p + offset))"; do
      if (exec 3<>"/dev/tcp/127.0.0.1/$q") 2>/dev/null; then echo "port $q is in use (set BASEPORT)" >&2; exit 2; fi
    done
  done
}

# build_spinel: builds the server once as bin/spinel-server would, and marks it built for it (skipped with NO_BUILD=1)
build_spinel() {
  [ "${NO_BUILD:-0}" = 1 ] && return 0
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -o -f "$root/pom.xml" -DskipTests -pl spinel-grpc -am package >&2
  touch "$root/spinel-grpc/target/.built-by-bin-spinel-server"
}
