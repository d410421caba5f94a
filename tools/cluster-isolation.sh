#!/usr/bin/env bash
# Issue #20, acceptance 4, the isolation case: a primary cut off from the majority by the network.
# Starts 3 primaries + 3 replicas (`redis-cli --cluster create ... --cluster-replicas 1`, cluster-node-timeout 2000),
# each node in its own network namespace, its veth pair plugged into a bridge in the calling namespace (where the
# client runs). A client writes numbered keys across all slots, each SET followed by `WAIT 1 100`; then the host end
# of one primary's veth goes down (the node keeps its address, it just reaches no one and no one reaches it) and:
#   - one of its replicas takes over (CLUSTER NODES on the majority side);
#   - the first successful write on the new primary comes < 5 s after the cut;
#   - the isolated old primary, written to from inside its own namespace every 50 ms, accepts no write after the
#     fencing time (Spinel's: half the node timeout, plus FENCE_SLACK_MS for its 50 ms check; not checked for
#     redis-server, whose minority side stops after about the node timeout) nor after the majority promoted its
#     replica (no split brain);
# then the link comes back: the old primary follows the new one (a replica, its writes redirected), the writes are
# WAIT-acknowledged again, and every write WAIT acknowledged before, during or after the fault is read back.
# SIGSTOP and kill -9 of a primary are ClusterFailoverTest's. Needs root (ip netns, veth, bridge). ~1-2 minutes.
#
#   tools/cluster-isolation.sh               Spinel (built first unless NO_BUILD=1)
#   SERVER=redis tools/cluster-isolation.sh  the same against redis-server 7.0.15 (the reference)
#
# Environment: SERVER (spinel|redis), PORT (21000: every node's port, each in its own namespace; bus PORT+10000),
# NET (10.77.0: the nodes are NET.1-6, the bridge NET.254), NAME (spx: prefix of the namespaces, bridge and veths),
# TIMEOUT (2000), FENCE_SLACK_MS (250), SPINEL_JAVA_OPTS (the nodes' JVM options), OUT (logs; default a temporary
# directory), NO_BUILD=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-spinel}
PORT=${PORT:-21000}
NET=${NET:-10.77.0}
NAME=${NAME:-spx}
TIMEOUT=${TIMEOUT:-2000}
FENCE_SLACK_MS=${FENCE_SLACK_MS:-250}
OUT=${OUT:-$(mktemp -d /tmp/spinel-isolation.XXXXXX)}
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
if ip link show "$NAME-br" >/dev/null 2>&1; then echo "bridge $NAME-br exists (another run? set NAME)" >&2; exit 2; fi
if [ "$SERVER" = spinel ] && [ "${NO_BUILD:-0}" != 1 ]; then
  echo "Building Spinel..." >&2
  JAVA_HOME=$("$root/bin/find-java") MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -o -f "$root/pom.xml" -DskipTests -pl spinel-grpc -am package >&2
  touch "$root/spinel-grpc/target/.built-by-bin-spinel-server"
fi

N=6
# Six JVMs start at once on a small machine: C1 only and the serial collector spare the CPU the Raft heartbeats need.
JAVA_OPTS=${SPINEL_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m}
PIDS=()
BG=()
cleanup() {
  for p in "${BG[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  for i in $(seq 1 $N); do ip netns del "$NAME-n$i" 2>/dev/null || true; done
  ip link del "$NAME-br" 2>/dev/null || true
}
trap cleanup EXIT
trap "exit 130" INT TERM

echo "== network: $N namespaces on bridge $NAME-br ($NET.0/24)"
# A previous run's veths go away with its namespaces, asynchronously.
for _ in $(seq 1 100); do ip link show "$NAME-v1" >/dev/null 2>&1 || break; sleep 0.1; done
ip link add "$NAME-br" type bridge
ip addr add "$NET.254/24" dev "$NAME-br"
ip link set "$NAME-br" up
for i in $(seq 1 $N); do
  ns="$NAME-n$i"
  ip netns add "$ns"
  ip link add "$NAME-v$i" type veth peer name eth0 netns "$ns"
  ip link set "$NAME-v$i" master "$NAME-br" up
  ip -n "$ns" addr add "$NET.$i/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done

for i in $(seq 1 $N); do
  dir="$OUT/node-$i"; mkdir -p "$dir"
  common=(--port "$PORT" --bind 0.0.0.0 --protected-mode no --save "" --appendonly no --dir "$dir"
    --cluster-enabled yes --cluster-node-timeout "$TIMEOUT" --cluster-announce-ip "$NET.$i" --repl-diskless-sync-delay 0)
  if [ "$SERVER" = redis ]; then
    (cd "$dir" && exec ip netns exec "$NAME-n$i" redis-server "${common[@]}" --logfile "$dir/log") &
  else
    (cd "$dir" && SPINEL_JAVA_OPTS=$JAVA_OPTS exec ip netns exec "$NAME-n$i" "$root/bin/spinel-server" "${common[@]}" --grpc-port 0 > "$dir/log" 2>&1) &
  fi
  PIDS+=("$!")
done
for i in $(seq 1 $N); do
  for _ in $(seq 1 1200); do
    [ "$(redis-cli -h "$NET.$i" -p "$PORT" PING 2>/dev/null)" = PONG ] && continue 2
    sleep 0.1
  done
  echo "node $NET.$i did not start (see $OUT)" >&2; exit 1
done
nodes=()
for i in $(seq 1 $N); do nodes+=("$NET.$i:$PORT"); done
echo "== create (3 primaries, 3 replicas)"
timeout 300 redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes > "$OUT/create.log" 2>&1 \
  || { cat "$OUT/create.log"; echo "create failed" >&2; exit 1; }
for _ in $(seq 1 300); do
  out=$(redis-cli --cluster check "$NET.1:$PORT" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)
  if grep -q '\[OK\] All 16384 slots covered' <<< "$out" && ! grep -q -e '\[ERR\]' -e '\[WARNING\]' <<< "$out" \
      && [ "$(grep -c '^M: ' <<< "$out")" = 3 ] && [ "$(grep -c '^S: ' <<< "$out")" = 3 ]; then
    break
  fi
  sleep 0.2
done
[ "$(grep -c '^S: ' <<< "$out")" = 3 ] || { echo "$out"; echo "--cluster check not clean" >&2; exit 1; }
# The primary to isolate: the one serving slot 0. Wait until each primary's replica is in sync (WAIT acknowledges).
victim=$(redis-cli -h "$NET.1" -p "$PORT" CLUSTER NODES | awk '$3 ~ /master/ && $9 ~ /^0-/ {sub(/:.*/, "", $2); print $2}')
[ "$(redis-cli -h "$NET.1" -p "$PORT" CLUSTER KEYSLOT '{06S}:probe')" = 0 ] || { echo "probe key not in slot 0" >&2; exit 1; }
vi=${victim##*.}
echo "   isolating $victim (serves slot 0): namespace $NAME-n$vi, host end $NAME-v$vi"
redis-cli -h "$NET.1" -p "$PORT" CLUSTER NODES > "$OUT/nodes-before.txt"
for _ in $(seq 1 300); do
  ok=0
  for i in $(seq 1 $N); do
    [ "$(redis-cli -h "$NET.$i" -p "$PORT" ROLE | head -1)" = master ] || continue
    [[ "$(redis-cli -h "$NET.$i" -p "$PORT" WAIT 1 100)" =~ ^[1-9] ]] && ok=$((ok + 1))
  done
  [ "$ok" = 3 ] && break
  sleep 0.2
done
[ "$ok" = 3 ] || { echo "replicas not in sync" >&2; exit 1; }

# The client library both Python parts use: RESP over sockets, CRC16 slots, a slot map from CLUSTER SLOTS.
cat > "$OUT/resp.py" <<'PY'
import socket, time
def crc16(data):
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xffff
    return crc
def slot(key):
    k = key.encode()
    s = k.find(b'{')
    if s >= 0:
        e = k.find(b'}', s + 1)
        if e > s + 1:
            k = k[s + 1:e]
    return crc16(k) % 16384
class Conn:
    def __init__(self, addr, timeout):
        self.s = socket.create_connection(addr, timeout=timeout)
        self.f = self.s.makefile('rb')
    def call(self, *args):
        self.s.sendall(b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(a), a) for a in (str(x).encode() for x in args)))
        return self.read()
    def read(self):
        line = self.f.readline()
        if not line:
            raise ConnectionError('closed')
        t, rest = line[:1], line[1:-2].decode()
        if t == b'+': return rest
        if t == b'-': return Error(rest)
        if t == b':': return int(rest)
        if t == b'$':
            n = int(rest)
            return None if n < 0 else self.f.read(n + 2)[:-2].decode()
        if t == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError(line)
    def close(self):
        try: self.s.close()
        except OSError: pass
class Error(str):
    pass
def now_ms():
    return int(time.time() * 1000)
PY

# The writer: keys w:0, w:1, ... in turn (all slots), SET then WAIT 1 100, on a slot map refreshed on MOVED, on
# -CLUSTERDOWN and on a timeout (asking the other nodes). Logs "ms addr key set-reply wait-reply" per write.
cat > "$OUT/writer.py" <<'PY'
import os, sys, time, random
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from resp import Conn, Error, slot, now_ms
net, port, n, log, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
nodes = [('%s.%d' % (net, i), port) for i in range(1, n + 1)]
conns, slots = {}, [None] * 16384
def conn(addr):
    c = conns.get(addr)
    if c is None:
        c = conns[addr] = Conn(addr, 0.3)
    return c
def drop(addr):
    c = conns.pop(addr, None)
    if c: c.close()
def refresh(avoid=None):
    for addr in random.sample(nodes, len(nodes)):
        if addr == avoid: continue
        try:
            r = conn(addr).call('CLUSTER', 'SLOTS')
        except OSError:
            drop(addr); continue
        if isinstance(r, list):
            for e in r:
                for s in range(e[0], e[1] + 1):
                    slots[s] = (e[2][0], e[2][1])
            return
refresh()
out = open(log, 'w', buffering=1)
i = 0
while not os.path.exists(stop):
    key = 'w:%d' % i
    addr = slots[slot(key)]
    for _ in range(3):
        try:
            r = conn(addr).call('SET', key, i)
            w = conn(addr).call('WAIT', 1, 100) if r == 'OK' else None
        except OSError as e:
            drop(addr); r, w = Error('timeout ' + type(e).__name__), None
            refresh(avoid=addr); addr = slots[slot(key)]
            break
        if isinstance(r, Error) and r.startswith('MOVED '):
            h, p = r.split()[2].rsplit(':', 1)
            slots[int(r.split()[1])] = addr = (h, int(p))
            continue
        if isinstance(r, Error):
            refresh(avoid=addr); time.sleep(0.02)
        break
    out.write('%d %s:%d %s %s %s\n' % (now_ms(), addr[0], addr[1], key, str(r).replace(' ', '_'), w))
    i += 1
PY

# The fencing probe, run inside the isolated node's namespace: SET on a key of its slot 0 every 50 ms.
cat > "$OUT/probe.py" <<'PY'
import os, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from resp import Conn, Error, now_ms
addr, log, stop = (sys.argv[1], int(sys.argv[2])), sys.argv[3], sys.argv[4]
out = open(log, 'w', buffering=1)
c, i = None, 0
while not os.path.exists(stop):
    try:
        c = c or Conn(addr, 1.0)
        r = c.call('SET', '{06S}:probe', i)
    except OSError as e:
        c, r = None, Error('io ' + type(e).__name__)
    out.write('%d %s\n' % (now_ms(), str(r).replace(' ', '_')))
    i += 1
    time.sleep(0.05)
PY

echo "== writer (SET + WAIT 1 100 across all slots) and fencing probe inside $NAME-n$vi"
python3 "$OUT/writer.py" "$NET" "$PORT" "$N" "$OUT/writes.log" "$OUT/stop" > "$OUT/writer.err" 2>&1 &
BG+=("$!")
ip netns exec "$NAME-n$vi" python3 "$OUT/probe.py" 127.0.0.1 "$PORT" "$OUT/probe.log" "$OUT/stop" > "$OUT/probe.err" 2>&1 &
BG+=("$!")
# Cut only once the victim takes the probe's writes and the writer has some WAIT-acknowledged writes.
for _ in $(seq 1 600); do
  if [ "$(tail -1 "$OUT/probe.log" 2>/dev/null | awk '{print $2}')" = OK ] \
      && [ "$(awk '$4 == "OK" && $5 ~ /^[1-9]/' "$OUT/writes.log" 2>/dev/null | wc -l)" -ge 500 ]; then break; fi
  sleep 0.1
done
sleep 1
victim_id=$(redis-cli -h "$victim" -p "$PORT" CLUSTER MYID)
cut=$(python3 -c 'import time; print(int(time.time()*1000))')
ip link set "$NAME-v$vi" down
echo "   cut $victim off at $cut"
# Watch the majority side until a replica of the victim serves slot 0.
witness=$NET.$(( vi % N + 1 ))
promoted=""
for _ in $(seq 1 300); do
  line=$(redis-cli -h "$witness" -p "$PORT" CLUSTER NODES 2>/dev/null | awk '$3 ~ /master/ && $3 !~ /fail/ && $9 ~ /^0-/' || true)
  if [ -n "$line" ] && [ "$(awk '{print $1}' <<< "$line")" != "$victim_id" ]; then
    promoted=$(python3 -c 'import time; print(int(time.time()*1000))'); new=$(awk '{print $2}' <<< "$line" | sed 's/@.*//'); break
  fi
  sleep 0.05
done
[ -n "$promoted" ] || { echo "no replica took over (see $OUT)" >&2; exit 1; }
echo "   $new serves slot 0, seen $((promoted - cut)) ms after the cut"
sleep 4
redis-cli -h "$witness" -p "$PORT" CLUSTER NODES > "$OUT/nodes-during.txt"
echo "== link back up"
healed=$(python3 -c 'import time; print(int(time.time()*1000))')
ip link set "$NAME-v$vi" up
role=""
for _ in $(seq 1 300); do
  role=$(redis-cli -h "$victim" -p "$PORT" ROLE 2>/dev/null | head -1 || true)
  [ "$role" = slave ] && break
  sleep 0.1
done
echo "   old primary's role: $role ($(( $(python3 -c 'import time; print(int(time.time()*1000))') - healed )) ms after the link came back)"
# The old primary's cluster state: settled on ok (ok for 5 s in a row) within 60 s; each change is printed (it
# has been seen to turn ok, fail again ~1 s later and ok again some seconds after: see docs/cluster.md).
state=""; last=""; since=0
for _ in $(seq 1 600); do
  state=$(redis-cli -h "$victim" -p "$PORT" CLUSTER INFO 2>/dev/null | tr -d '\r' | grep cluster_state || true)
  t=$(( $(python3 -c 'import time; print(int(time.time()*1000))') - healed ))
  [ "$state" = "$last" ] || { echo "   old primary's $state ($t ms after the link came back)"; since=$t; }
  last=$state
  [ "$state" = cluster_state:ok ] && [ $((t - since)) -ge 5000 ] && break
  sleep 0.1
done
[ "$state" = cluster_state:ok ] && [ $((t - since)) -ge 5000 ] || state="$state (not settled on ok within 60 s)"
touch "$OUT/stop"
for p in "${BG[@]}"; do wait "$p" || true; done
BG=()
redis-cli -h "$witness" -p "$PORT" CLUSTER NODES > "$OUT/nodes-after.txt"

echo "== checks"
SERVER=$SERVER python3 - "$OUT" "$cut" "$promoted" "$healed" "$new" "$PORT" "$TIMEOUT" "$FENCE_SLACK_MS" "$role" "$NET" "$N" "$state" "$witness" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
from resp import Conn, Error, slot
out, cut, promoted, healed, new, port, timeout, slack, role, net, n, state, witness = sys.argv[1:14]
cut, promoted, healed, port, timeout, slack = int(cut), int(promoted), int(healed), int(port), int(timeout), int(slack)
failed = []
writes = [l.split() for l in open(os.path.join(out, 'writes.log'))]
ok = [w for w in writes if w[3] == 'OK']
acked = [w for w in ok if w[4] not in ('None', '0')]
before = [w for w in ok if int(w[0]) < cut]
print('   writer: %d attempts, %d SET OK, %d WAIT-acknowledged (%d before the cut)' % (len(writes), len(ok), len(acked), len(before)))
# first successful write on the new primary (it serves only the isolated primary's slots)
first = next((w for w in ok if int(w[0]) > cut and w[1] == new), None)
if first is None:
    failed.append('no successful write on the new primary %s' % new)
else:
    d = int(first[0]) - cut
    print('   first successful write on the new primary %s: %d ms after the cut (%s)' % (new, d, first[2]))
    if d >= 5000: failed.append('first write on the new primary %d ms after the cut (>= 5000)' % d)
after_heal = [w for w in acked if int(w[0]) > healed]
print('   WAIT-acknowledged writes after the link came back: %d' % len(after_heal))
if not after_heal: failed.append('no WAIT-acknowledged write after the link came back')
# fencing: the probe inside the isolated node's namespace
probe = [l.split() for l in open(os.path.join(out, 'probe.log'))]
before_cut = [p for p in probe if int(p[0]) < cut and p[1] == 'OK']
accepted = [p for p in probe if cut <= int(p[0]) < healed and p[1] == 'OK']
refused = [p for p in probe if cut <= int(p[0]) < healed and p[1] != 'OK']
if not before_cut: failed.append('the probe wrote nothing before the cut')
last = int(accepted[-1][0]) - cut if accepted else None
print('   isolated primary: last write accepted %s after the cut; then refused %d times (%s)' % (
    '%d ms' % last if last is not None else 'none', len(refused), ', '.join(sorted(set(p[1] for p in refused)))))
fence = timeout // 2
if last is not None and last > fence + slack and os.environ.get('SERVER', 'spinel') == 'spinel':
    failed.append('the isolated primary accepted a write %d ms after the cut (fencing time %d ms + %d)' % (last, fence, slack))
if last is not None and cut + last >= promoted:
    failed.append('split brain: the isolated primary accepted a write after its replica was promoted')
if not refused: failed.append('the isolated primary never refused a write')
after = [p for p in probe if int(p[0]) > healed + 2000]
print('   isolated primary after the link came back: %s' % (after[-1][1] if after else 'no probe'))
if role != 'slave': failed.append('the old primary is not a replica after the link came back (%s)' % role)
if state != 'cluster_state:ok': failed.append('the old primary did not settle on cluster_state:ok (%s)' % state)
# read every acknowledged write back, through the redirections
conns = {}
def get(key):
    addr = (witness, port)
    for _ in range(5):
        c = conns.get(addr) or conns.setdefault(addr, Conn(addr, 5))
        r = c.call('GET', key)
        if isinstance(r, Error) and r.startswith('MOVED '):
            h, p = r.split()[2].rsplit(':', 1); addr = (h, int(p)); continue
        return r
    return r
lost = [w for w in acked if get(w[2]) != w[2].split(':')[1]]
print('   acknowledged writes read back: %d of %d' % (len(acked) - len(lost), len(acked)))
if lost: failed.append('%d acknowledged writes lost, e.g. %s' % (len(lost), lost[:3]))
for f in failed: print('FAILED: ' + f)
sys.exit(1 if failed else 0)
PY
echo "$SERVER: ok (logs in $OUT)"
