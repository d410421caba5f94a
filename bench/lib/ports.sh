# Sourced by the bench scripts: free_port prints a port below the kernel's ephemeral range (so no client socket
# of the load generator holds it) that nothing answers on. A server that still fails to bind it is retried by
# the caller on another port. Needs SCRIPT_NAME set for its error message. PORT_BASE and PORT_SPAN (optional) keep
# the ports within [PORT_BASE, PORT_BASE + PORT_SPAN), for a machine where each user has a range of its own.
EPHEMERAL_LOW=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
  local p base=${PORT_BASE:-10000} span=${PORT_SPAN:-$(( EPHEMERAL_LOW - 10000 ))}
  for _ in $(seq 1 200); do
    p=$(( base + (RANDOM * 32768 + RANDOM) % span ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "${SCRIPT_NAME:-bench}: no free port found" >&2; exit 1
}
