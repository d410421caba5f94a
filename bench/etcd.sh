#!/usr/bin/env bash
# Prints the path of an etcd 3.5 server binary, building it on first use from the Go module proxy
# (go.etcd.io/etcd/server/v3 at ETCD_VERSION, default v3.5.35) into ETCD_CACHE (default ~/.cache/spinel-bench).
# `go install go.etcd.io/etcd/server/v3@v3.5.x` is refused by the go command (etcd's go.mod has replace
# directives), so this builds a two-line main module that calls etcdmain.Main. Needs Go (go1.22 or later).
set -euo pipefail
ETCD_VERSION=${ETCD_VERSION:-v3.5.35}
ETCD_CACHE=${ETCD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spinel-bench}
bin="$ETCD_CACHE/etcd-$ETCD_VERSION/etcd"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
command -v go > /dev/null || { echo "etcd.sh: go not found (needed to build etcd $ETCD_VERSION)" >&2; exit 2; }
src=$(mktemp -d /tmp/spinel-etcd-build.XXXXXX)
trap 'rm -rf "$src"' EXIT
cat > "$src/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
printf 'module spinelbench/etcd\n\ngo 1.22\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > "$src/go.mod"
echo "etcd.sh: building etcd $ETCD_VERSION (a few minutes on first use)..." >&2
mkdir -p "$(dirname "$bin")"
(cd "$src" && go mod tidy >&2 && GOFLAGS=-buildvcs=false go build -o "$bin.tmp" . >&2)
mv "$bin.tmp" "$bin"
echo "$bin"
