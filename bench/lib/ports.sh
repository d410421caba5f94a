# Sourced by the bench scripts: free_port prints a port below the kernel's ephemeral range (so no client socket
# of the load generator holds it) that nothing answers on. A server that still fails to bind it is retried by
# the caller on another port. Needs SCRIPT_NAME set for its error message. BENCH_PORTS=LOW-HIGH (e.g. 27000-27999),
# or PORT_BASE and PORT_SPAN ([PORT_BASE, PORT_BASE + PORT_SPAN)), limit the choice to that range (machines shared by
# several sessions give each its own range).
EPHEMERAL_LOW=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
  local p low=${PORT_BASE:-10000} span=${PORT_SPAN:-$(( EPHEMERAL_LOW - 10000 ))}
  if [ -n "${BENCH_PORTS:-}" ]; then low=${BENCH_PORTS%-*}; span=$(( ${BENCH_PORTS#*-} - low + 1 )); fi
  for _ in $(seq 1 200); do
    p=$(( low + (RANDOM * 32768 + RANDOM) % span ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "${SCRIPT_NAME:-bench}: no free port found" >&2; exit 1
}
