#!/usr/bin/env bash
# Wall time and peak memory of `agent --version` (of the README's build and
# of a release build, stamped and stripped as goreleaser builds it, which
# answers before the slow packages initialise), of `agent --help`, and of a
# one-step `agent -p hi` against the scripted server (a streamed "hello" with
# usage).
# Needs hyperfine and GNU time: apt-get install -y hyperfine time
# Usage: bench/startup.sh [RUNS]   (default 50 runs each; medians reported)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
out=bench/out
mkdir -p "$out"
go build -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
go build -trimpath -tags grpcnotrace -ldflags "-s -w -X github.com/agent-dev/agent/internal/version.stamped=bench" -o "$out/agent-release" .
go build -o "$out/scripted-server" ./bench/scripted-server

rm -f "$out/server.url"
"$out/scripted-server" -addr 127.0.0.1:0 > "$out/server.url" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
while [ ! -s "$out/server.url" ]; do sleep 0.05; done
url=$(head -1 "$out/server.url")
work=$(mktemp -d)
hi=("$out/agent" -p hi --no-stdin --base-url "$url" --model scripted -C "$work")
"${hi[@]}" >/dev/null   # fail early if the run does not work

hyperfine -N --warmup 5 --runs "$runs" --export-json "$out/startup.json" \
  "$out/agent --version" "$out/agent-release --version" "$out/agent --help" "${hi[*]}"
python3 - "$out/startup.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command'][:60]:60s} median {r['median']*1000:7.2f} ms  (mean {r['mean']*1000:.2f} ± {r['stddev']*1000:.2f})")
PY

peak() { # median peak RSS in KiB over $runs runs of the command
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
  done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
echo "peak RSS (median of $runs): agent --version $(peak "$out/agent" --version) KiB;" \
  "release build --version $(peak "$out/agent-release" --version) KiB; agent -p hi $(peak "${hi[@]}") KiB"
rm -rf "$work"
