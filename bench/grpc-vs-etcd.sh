#!/usr/bin/env bash
# Spinel's gRPC KV service beside etcd, driven by the same load generator (ghz) at the same concurrency.
#
#   bench/grpc-vs-etcd.sh
#
# Starts Spinel (bin/spinel-server, which builds the jar on first start; --save "") and etcd (single member,
# --unsafe-no-fsync, a temporary data dir) on free loopback ports, then runs ghz for:
#   Spinel spinel.kv.v1.KV/Put, spinel.kv.v1.KV/Get
#   etcd   etcdserverpb.KV/Put, etcdserverpb.KV/Range (linearizable, etcd's default) and Range with
#          serializable=true (answered by the member without a ReadIndex round; the closer match to Spinel's Get)
# Each run: -c CONC (default 50) concurrent requests over --connections 1 (one HTTP/2 connection), N requests
# (default 50000), preceded by a short warm-up run that is not reported. Keys are 16 bytes ("%016d" of
# ghz's request number: N distinct keys), values 32 bytes; the Put runs write the keys that the reads then find.
# ghz's JSON form of a bytes field is base64, so the key template is `printf "%016d" | b64enc` on both sides.
# Prints RPC, ops/s, p50, p99 for both servers and the ratio Spinel/etcd of ops/s.
#
# Environment: CONC (50), N (50000), WARMUP (5000), OUT (directory for ghz's JSON reports and the server logs;
# default a temporary one), SPINEL_JAVA_OPTS (passed to bin/spinel-server).
# Installs nothing: needs etcd (Debian: apt-get install etcd-server) and ghz
# (go install github.com/bojand/ghz/cmd/ghz@v0.120.0; looked for on PATH and in ~/go/bin), and jq.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

GHZ=$(command -v ghz || true)
[ -z "$GHZ" ] && [ -x "${GOPATH:-$HOME/go}/bin/ghz" ] && GHZ="${GOPATH:-$HOME/go}/bin/ghz"
missing=0
if ! command -v etcd >/dev/null; then
  echo "grpc-vs-etcd.sh: etcd not found. Install it with: sudo apt-get install etcd-server" >&2; missing=1
fi
if [ -z "$GHZ" ]; then
  echo "grpc-vs-etcd.sh: ghz not found. Install it with: go install github.com/bojand/ghz/cmd/ghz@v0.120.0" >&2; missing=1
fi
if ! command -v jq >/dev/null; then
  echo "grpc-vs-etcd.sh: jq not found. Install it with: sudo apt-get install jq" >&2; missing=1
fi
[ "$missing" = 0 ] || exit 2

CONC=${CONC:-50}
N=${N:-50000}
WARMUP=${WARMUP:-5000}
OUT=${OUT:-$(mktemp -d /tmp/spinel-grpc-etcd.XXXXXX)}
mkdir -p "$OUT"
SPINEL_PROTO_DIR="$root/spinel-grpc/src/main/proto"
ETCD_PROTO_DIR="$root/bench"

# Ports below the kernel's ephemeral range that nothing answers on.
SCRIPT_NAME=grpc-vs-etcd.sh
. "$root/bench/lib/ports.sh"

PIDS=()
ETCD_DIR=""
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  [ -n "$ETCD_DIR" ] && rm -rf "$ETCD_DIR"
  return 0
}
trap cleanup EXIT

wait_port() { # port pid name -> 0 once the port accepts connections
  for _ in $(seq 1 1800); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "grpc-vs-etcd.sh: $3 exited (logs in $OUT)" >&2; exit 1; }
    sleep 0.1
  done
  echo "grpc-vs-etcd.sh: $3 did not listen on port $1 within 180 s (logs in $OUT)" >&2; exit 1
}

SPINEL_PORT=$(free_port); SPINEL_GRPC=$(free_port)
"$root/bin/spinel-server" --port "$SPINEL_PORT" --bind 127.0.0.1 --grpc-port "$SPINEL_GRPC" --save "" \
  > "$OUT/spinel.log" 2>&1 &
PIDS+=($!)
wait_port "$SPINEL_GRPC" "$!" spinel

ETCD_PORT=$(free_port); ETCD_PEER=$(free_port)
ETCD_DIR=$(mktemp -d /tmp/spinel-etcd-data.XXXXXX)
etcd --name bench --data-dir "$ETCD_DIR" --unsafe-no-fsync \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "bench=http://127.0.0.1:$ETCD_PEER" > "$OUT/etcd.log" 2>&1 &
PIDS+=($!)
wait_port "$ETCD_PORT" "$!" etcd
# The client port opens before the member is leader: wait for a Put to succeed.
for _ in $(seq 1 100); do
  if "$GHZ" --insecure --proto "$ETCD_PROTO_DIR/etcd-kv.proto" --import-paths "$ETCD_PROTO_DIR" \
      --call etcdserverpb.KV/Put -d '{"key":"cmVhZHk=","value":"eQ=="}' -n 1 -c 1 --format json \
      "127.0.0.1:$ETCD_PORT" 2>/dev/null | jq -e '.statusCodeDistribution.OK == 1' >/dev/null; then break; fi
  sleep 0.2
done

VALUE_B64=$(printf '%032d' 7 | base64 -w0)   # 32 bytes
KEY_TMPL='{{ printf `%016d` .RequestNumber | b64enc }}'

# run NAME ADDR PROTO_DIR PROTO CALL DATA -> writes $OUT/NAME.json
run() {
  local name=$1 addr=$2 dir=$3 proto=$4 call=$5 data=$6
  "$GHZ" --insecure --import-paths "$dir" --proto "$dir/$proto" --call "$call" -d "$data" \
    -c "$CONC" --connections 1 -n "$WARMUP" --format json "$addr" > "$OUT/$name-warmup.json"
  "$GHZ" --insecure --import-paths "$dir" --proto "$dir/$proto" --call "$call" -d "$data" \
    -c "$CONC" --connections 1 -n "$N" --format json "$addr" > "$OUT/$name.json"
  local ok
  ok=$(jq '.statusCodeDistribution.OK // 0' "$OUT/$name.json")
  if [ "$ok" != "$N" ]; then
    echo "grpc-vs-etcd.sh: $name: only $ok of $N calls OK:" >&2
    jq -c '.statusCodeDistribution, .errorDistribution' "$OUT/$name.json" >&2
  fi
  echo "$name done" >&2
}

S="127.0.0.1:$SPINEL_GRPC"; E="127.0.0.1:$ETCD_PORT"
SP=spinel/kv/v1/kv.proto
run spinel-put "$S" "$SPINEL_PROTO_DIR" "$SP" spinel.kv.v1.KV/Put "{\"key\":\"$KEY_TMPL\",\"value\":\"$VALUE_B64\"}"
run etcd-put "$E" "$ETCD_PROTO_DIR" etcd-kv.proto etcdserverpb.KV/Put "{\"key\":\"$KEY_TMPL\",\"value\":\"$VALUE_B64\"}"
run spinel-get "$S" "$SPINEL_PROTO_DIR" "$SP" spinel.kv.v1.KV/Get "{\"key\":\"$KEY_TMPL\"}"
run etcd-range "$E" "$ETCD_PROTO_DIR" etcd-kv.proto etcdserverpb.KV/Range "{\"key\":\"$KEY_TMPL\"}"
run etcd-range-ser "$E" "$ETCD_PROTO_DIR" etcd-kv.proto etcdserverpb.KV/Range "{\"key\":\"$KEY_TMPL\",\"serializable\":true}"

# Sanity: ghz does not look at replies, so read one key back from each server (RESP GET on Spinel, etcd's
# JSON gateway for etcd) and check it holds the 32-byte value.
K=$(printf '%016d' $((N - 1)))
spinel_val=$( { exec 3<>"/dev/tcp/127.0.0.1/$SPINEL_PORT"; printf '*2\r\n$3\r\nGET\r\n$16\r\n%s\r\n' "$K" >&3; timeout 5 head -c 39 <&3; exec 3<&-; } \
  | tr -d '\r' | sed -n 2p)
etcd_val=$(curl -s "http://127.0.0.1:$ETCD_PORT/v3/kv/range" -d "{\"key\":\"$(printf '%s' "$K" | base64 -w0)\"}" \
  | jq -r '.kvs[0].value // empty')
[ "$spinel_val" = "$(printf '%032d' 7)" ] || echo "grpc-vs-etcd.sh: WARNING: Spinel GET $K returned '$spinel_val'" >&2
[ "$etcd_val" = "$VALUE_B64" ] || echo "grpc-vs-etcd.sh: WARNING: etcd range $K returned '$etcd_val'" >&2

stat() { # name -> "ops/s p50_ms p99_ms"
  jq -r '[.rps, (.latencyDistribution[] | select(.percentage == 50) | .latency),
          (.latencyDistribution[] | select(.percentage == 99) | .latency)]
         | "\(.[0]) \(.[1] / 1e6) \(.[2] / 1e6)"' "$OUT/$1.json"
}

echo
echo "ghz -c $CONC --connections 1 -n $N (after a $WARMUP-call warm-up); 16-byte keys, 32-byte values; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %12s %9s %9s | %-40s %12s %9s %9s | %s\n' \
  "Spinel RPC" "ops/s" "p50 ms" "p99 ms" "etcd RPC" "ops/s" "p50 ms" "p99 ms" "ops/s Spinel/etcd"
row() { # spinel-name spinel-label etcd-name etcd-label
  local a b
  read -r ar a50 a99 <<< "$(stat "$1")"
  read -r br b50 b99 <<< "$(stat "$3")"
  printf '%-34s %12.0f %9.2f %9.2f | %-40s %12.0f %9.2f %9.2f | %.2fx\n' \
    "$2" "$ar" "$a50" "$a99" "$4" "$br" "$b50" "$b99" "$(echo "$ar / $br" | bc -l)"
}
row spinel-put "spinel.kv.v1.KV/Put" etcd-put "etcdserverpb.KV/Put"
row spinel-get "spinel.kv.v1.KV/Get" etcd-range "etcdserverpb.KV/Range"
row spinel-get "spinel.kv.v1.KV/Get" etcd-range-ser "etcdserverpb.KV/Range serializable=true"
echo "(ghz JSON reports and server logs: $OUT)"
