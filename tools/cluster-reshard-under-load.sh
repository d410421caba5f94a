#!/usr/bin/env bash
# Issue #20, acceptance 1: `redis-cli --cluster create ... --cluster-replicas 1` on 6 nodes, `--cluster check` clean,
# then `--cluster reshard` of 1000 slots while a client writes; the client follows MOVED and ASK (ASKING) as cluster
# clients do, and no other error may reach it. Afterwards every acknowledged write is read back through the
# redirections and `--cluster check` is clean again. About 1-2 minutes on a quiet machine.
#
#   tools/cluster-reshard-under-load.sh              Spinel (built first unless NO_BUILD=1)
#   SERVER=redis tools/cluster-reshard-under-load.sh the same against redis-server 7.0.15 (the reference)
#
# Environment: SERVER (spinel|redis), BASEPORT (21400: nodes BASEPORT..+5, bus ports +10000), SLOTS (1000),
# OUT (logs; default a temporary directory), NO_BUILD=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-spinel}
BASEPORT=${BASEPORT:-21400}
SLOTS=${SLOTS:-1000}
OUT=${OUT:-$(mktemp -d /tmp/spinel-reshard-load.XXXXXX)}
mkdir -p "$OUT"
PORTS=()
for i in 0 1 2 3 4 5; do PORTS+=("$((BASEPORT + i))"); done
. "$root/tools/lib/six-node-script.sh"
check_free_ports 10000
if [ "$SERVER" = spinel ]; then build_spinel; fi

PIDS=()
WRITER=""
cleanup() {
  [ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null || true
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

for i in 0 1 2 3 4 5; do
  dir="$OUT/node-$i"; mkdir -p "$dir"
  if [ "$SERVER" = redis ]; then
    (cd "$dir" && exec redis-server --port "${PORTS[$i]}" --bind 127.0.0.1 --save "" --appendonly no \
      --cluster-enabled yes --cluster-node-timeout 5000 --dir "$dir" --logfile "$dir/log") &
  else
    (cd "$dir" && exec "$root/bin/spinel-server" --port "${PORTS[$i]}" --bind 127.0.0.1 --save "" --appendonly no \
      --cluster-enabled yes --cluster-node-timeout 5000 --dir "$dir" --grpc-port 0 > "$dir/log" 2>&1) &
  fi
  PIDS+=("$!")
done
for i in 0 1 2 3 4 5; do
  for _ in $(seq 1 1200); do
    [ "$(redis-cli -p "${PORTS[$i]}" PING 2>/dev/null)" = PONG ] && continue 2
    sleep 0.1
  done
  echo "node ${PORTS[$i]} did not start (see $OUT)" >&2; exit 1
done
nodes=()
for p in "${PORTS[@]}"; do nodes+=("127.0.0.1:$p"); done
echo "== create (3 primaries, 3 replicas)"
redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes > "$OUT/create.log" 2>&1 \
  || { cat "$OUT/create.log"; echo "create failed" >&2; exit 1; }
# check_clean: --cluster check from every node reports all slots covered and no warning or error
check_clean() {
  local out
  for _ in $(seq 1 100); do
    out=$(redis-cli --cluster check "127.0.0.1:${PORTS[0]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)
    if grep -q '\[OK\] All 16384 slots covered' <<< "$out" && ! grep -q -e '\[ERR\]' -e '\[WARNING\]' <<< "$out" \
        && [ "$(grep -c '^M: ' <<< "$out")" = 3 ]; then
      echo "$out" > "$OUT/check-$1.log"; return 0
    fi
    sleep 0.2
  done
  echo "$out"; echo "--cluster check ($1) not clean" >&2; return 1
}
check_clean create
grep -E '^(M|S): ' "$OUT/check-create.log" | sed 's/^/   /'
echo "   check: clean"

echo "== writer (follows MOVED and ASK) and reshard of $SLOTS slots"
python3 - "${PORTS[0]}" "$OUT/writer.out" "$OUT/stop" > "$OUT/writer.log" 2>&1 <<'PY' &
import os, socket, sys, time
seed, out, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3]
conns = {}
def conn(addr):
    c = conns.get(addr)
    if c is None:
        s = socket.create_connection(addr, timeout=10)
        c = conns[addr] = (s, s.makefile('rb'))
    return c
def cmd(addr, *args):
    s, f = conn(addr)
    b = b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(a), a) for a in (x.encode() for x in args))
    s.sendall(b)
    line = f.readline()
    if line[:1] == b'$':
        n = int(line[1:])
        return None if n < 0 else f.read(n + 2)[:-2].decode()
    return line.decode().rstrip('\r\n')
route = {}  # key -> the node that last served it (a client's slot cache, by key: no CRC16 here)
def call(*args):
    addr = route.get(args[1], ('127.0.0.1', seed))
    for _ in range(20):
        r = cmd(addr, *args)
        if isinstance(r, str) and r.startswith('-MOVED '):
            h, p = r.split()[2].rsplit(':', 1); addr = route[args[1]] = (h, int(p)); stats['moved'] += 1; continue
        if isinstance(r, str) and r.startswith('-ASK '):
            h, p = r.split()[2].rsplit(':', 1); a = (h, int(p)); stats['ask'] += 1
            assert cmd(a, 'ASKING') == '+OK'
            r = cmd(a, *args)
            if isinstance(r, str) and r.startswith('-TRYAGAIN'):
                stats['tryagain'] += 1; time.sleep(0.01); continue
            return r
        if isinstance(r, str) and r.startswith('-TRYAGAIN'):
            stats['tryagain'] += 1; time.sleep(0.01); continue
        return r
    return '-ERR too many redirections'
stats = {'moved': 0, 'ask': 0, 'tryagain': 0, 'errors': 0, 'writes': 0}
written = {}
i = 0
while not os.path.exists(stop):
    k, v = 'key:%d' % (i % 20000), 'v%d' % i
    r = call('SET', k, v)
    if r == '+OK':
        written[k] = v; stats['writes'] += 1
    else:
        stats['errors'] += 1; print('error on SET %s: %r' % (k, r), flush=True)
    i += 1
# read back every acknowledged write through the redirections
lost = 0
for k, v in written.items():
    r = call('GET', k)
    if r != v:
        lost += 1
        if lost < 10: print('GET %s: %r, wrote %r' % (k, r, v), flush=True)
stats['lost'] = lost; stats['keys'] = len(written)
open(out, 'w').write(' '.join('%s=%d' % kv for kv in stats.items()) + '\n')
PY
WRITER=$!
sleep 2
from=$(redis-cli -p "${PORTS[0]}" CLUSTER MYID)
to=$(redis-cli -p "${PORTS[1]}" CLUSTER MYID)
start=$(date +%s)
redis-cli --cluster reshard "127.0.0.1:${PORTS[0]}" --cluster-from "$from" --cluster-to "$to" \
  --cluster-slots "$SLOTS" --cluster-yes > "$OUT/reshard.log" 2>&1 \
  || { tail -20 "$OUT/reshard.log"; echo "reshard failed" >&2; exit 1; }
echo "   reshard: $(grep -c '^Moving slot' "$OUT/reshard.log") slots moved in $(( $(date +%s) - start )) s"
sleep 1
touch "$OUT/stop"
wait "$WRITER" || true
WRITER=""
[ -s "$OUT/writer.out" ] || { cat "$OUT/writer.log"; echo "writer failed" >&2; exit 1; }
echo "   writer: $(cat "$OUT/writer.out")"
check_clean reshard
echo "   check: clean"
status=0
grep -q ' errors=0 ' "$OUT/writer.out" || { head -20 "$OUT/writer.log"; echo "FAILED: errors reached the client" >&2; status=1; }
grep -q ' lost=0 ' "$OUT/writer.out" || { head -20 "$OUT/writer.log"; echo "FAILED: acknowledged writes lost" >&2; status=1; }
grep -q ' ask=0 ' "$OUT/writer.out" && echo "   note: the writer met no ASK (the load was too light to hit a slot in migration)"
[ "$status" = 0 ] && echo "$SERVER: ok (logs in $OUT)"
exit "$status"
