#!/usr/bin/env bash
# Issue #17's acceptance 5 with redis-py's Sentinel client (SentinelFailoverTest covers Jedis and Lettuce in the test
# suite): three Sentinels (redis-server --sentinel, quorum 2, down-after-milliseconds 2000) monitor a Spinel master and
# two Spinel replicas on loopback; redis-py's `Sentinel.master_for` writes unique keys, each SET followed by
# `WAIT 1 100`, recording what WAIT acknowledged; then kill -9 of the master; then SIGSTOP of the promoted master for
# at least twice down-after-milliseconds (SIGCONT once the last replica is promoted), until Sentinel converts the
# resumed node into a replica. Passes when each promotion takes under 10 s, the client writes to each new master,
# and every acknowledged write is on the final master. About 35 s once built.
#
#   tools/sentinel-redis-py.sh            (PORT_BASE=24500: nodes at +0..2, Sentinels at +10..12)
#
# Needs python3 with venv/pip (redis-py 5.0.8 goes into ~/.cache/spinel-redis-py-venv) and redis-server 7.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${PORT_BASE:-24500}
venv="$HOME/.cache/spinel-redis-py-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import redis' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'redis==5.0.8'
fi
work=$(mktemp -d /tmp/spinel-sentinel-py.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
for i in 0 1 2; do
  port=$((base + i))
  args=(--port "$port" --bind 127.0.0.1 --save "" --grpc-port 0 --repl-diskless-sync-delay 0 --dir "$work" --dbfilename "dump$i.rdb")
  [ "$i" -gt 0 ] && args+=(--replicaof "127.0.0.1 $base")
  "$root/bin/spinel-server" "${args[@]}" > "$work/node$i.log" 2>&1 &
  pids+=($!)
  # one at a time: the first start may build the checkout (bin/spinel-server), which must not run three times at once
  for _ in $(seq 1 900); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
done
for _ in $(seq 1 100); do
  [ "$(redis-cli -p "$base" info replication | grep -c 'state=online')" = 2 ] && break; sleep 0.2
done
for i in 0 1 2; do
  sp=$((base + 10 + i))
  printf 'port %s\nbind 127.0.0.1\ndir %s\nsentinel monitor mymaster 127.0.0.1 %s 2\nsentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 10000\n' \
    "$sp" "$work" "$base" > "$work/sentinel$i.conf"
  redis-server "$work/sentinel$i.conf" --sentinel > "$work/sentinel$i.log" 2>&1 &
  pids+=($!)
done
"$venv/bin/python" - "$base" "${pids[0]}" "${pids[1]}" "${pids[2]}" <<'EOF'
import os, signal, sys, threading, time
from redis.sentinel import Sentinel

base, node_pids = int(sys.argv[1]), [int(p) for p in sys.argv[2:5]]
sentinel_ports = [base + 10, base + 11, base + 12]
deadline = time.time() + 30
for p in sentinel_ports:  # each Sentinel knows both replicas and the other two Sentinels
    s = Sentinel([("127.0.0.1", p)], socket_timeout=1)
    while True:
        try:
            c = s.sentinels[0]
            if len(c.sentinel_slaves("mymaster")) == 2 and len(c.sentinel_sentinels("mymaster")) == 2:
                break
        except Exception:
            pass
        if time.time() > deadline:
            sys.exit("Sentinel %d never saw the replicas and the other Sentinels" % p)
        time.sleep(0.1)

sentinel = Sentinel([("127.0.0.1", p) for p in sentinel_ports], socket_timeout=1)
master = sentinel.master_for("mymaster", socket_timeout=1)
acked, stop, first_after_kill = {}, threading.Event(), []
kill_at = [None]

def writer():
    n = 0
    while not stop.is_set():
        key = "py:%d" % n
        n += 1  # a key whose write may or may not have landed is never reused
        try:
            master.set(key, str(n))
            if master.execute_command("WAIT", 1, 100) >= 1:
                acked[key] = str(n)
                if kill_at[0] is not None and not first_after_kill:
                    first_after_kill.append(time.time())
        except Exception:
            time.sleep(0.05)

t = threading.Thread(target=writer)
t.start()
while len(acked) < 100:
    time.sleep(0.05)
def promoted_from(old, since):
    """The master Sentinel names once it is not `old`, and how long after `since` that took."""
    while True:
        try:
            new = sentinel.discover_master("mymaster")
            if new != old:
                return new, time.time() - since
        except Exception:
            pass
        if time.time() - since > 30:
            sys.exit("no promotion within 30 s")
        time.sleep(0.1)

def acked_again(since):
    """Waits for 100 more acknowledged writes; the time of the first one after `since`."""
    count = len(acked)
    while len(acked) < count + 100 and time.time() - since < 60:
        time.sleep(0.05)
    if not first_after_kill:
        sys.exit("no write acknowledged after %.0f s" % (time.time() - since))
    return first_after_kill.pop() - since

# 1. kill -9 of the master
old = sentinel.discover_master("mymaster")
kill_at[0] = time.time()
os.kill(node_pids[old[1] - base], signal.SIGKILL)
new, promotion = promoted_from(old, kill_at[0])
again = acked_again(kill_at[0])
print("redis-py: %s promoted %.1f s after the kill -9; writes acknowledged again after %.1f s" % (new[1], promotion, again))

# 2. SIGSTOP of the new master for at least twice down-after-milliseconds, SIGCONT after the next promotion; WAIT
#    acknowledges again once Sentinel has converted the resumed node into the last master's replica (the only one left)
stopped = new
stop_at = time.time()
os.kill(node_pids[stopped[1] - base], signal.SIGSTOP)
time.sleep(0.2)  # a reply already on its way when the node stopped is not an acknowledgement after the stop
first_after_kill.clear()
kill_at[0] = stop_at
last, promotion2 = promoted_from(stopped, kill_at[0])
time.sleep(max(0, kill_at[0] + 4.0 - time.time()))
os.kill(node_pids[stopped[1] - base], signal.SIGCONT)
import redis
resumed = redis.Redis(host=stopped[0], port=stopped[1], socket_timeout=1)
converted = time.time()
while True:  # Sentinel turns the resumed node into a replica of the last master
    try:
        r = resumed.info("replication")
        if r.get("role") == "slave" and r.get("master_port") == last[1] and r.get("master_link_status") == "up":
            break
    except Exception:
        pass
    if time.time() - converted > 60:
        sys.exit("the resumed node was not converted into a replica of %s within 60 s" % last[1])
    time.sleep(0.2)
print("redis-py: %s converted into a replica of %s %.1f s after SIGCONT" % (stopped[1], last[1], time.time() - converted))
again2 = acked_again(kill_at[0])
print("redis-py: %s promoted %.1f s after the SIGSTOP of %s; writes acknowledged again after %.1f s"
      % (last[1], promotion2, stopped[1], again2))
stop.set()
t.join()
final = redis.Redis(host=last[0], port=last[1])
lost = [k for k, v in acked.items() if final.get(k) != v.encode()]
print("redis-py: %d acknowledged, %d lost" % (len(acked), len(lost)))
if lost or promotion >= 10 or promotion2 >= 10:
    sys.exit("FAILED: lost %s" % lost[:10])
print("PASSED")
EOF
