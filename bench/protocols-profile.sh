#!/usr/bin/env bash
# Where the protocol front-ends' CPU goes: each front-end (agent acp, the
# Claude Agent SDK's protocol, agent -p) is run RUNS times by
# bench/protocols under `perf record` (cpu-clock, 2000 samples a second),
# and the agent process's samples are counted: all of them, and those of
# the protocol layer alone (a stack through acp-go-sdk or package acp,
# sdkstream, or -p's printer, and through none of the agent's own work:
# the session's setup, the loop, the turn runner, the store, the
# providers, the tools). Needs perf (linux-perf).
# Usage: bench/protocols-profile.sh [RUNS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
out=bench/out
mkdir -p "$out"
CGO_ENABLED=0 go build -pgo=agent.pgo -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
go build -o "$out/scripted-server" ./bench/scripted-server
go build -o "$out/protocols" ./bench/protocols
rm -f "$out/server.url"
"$out/scripted-server" -addr 127.0.0.1:0 > "$out/server.url" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
while [ ! -s "$out/server.url" ]; do sleep 0.05; done
url=$(head -1 "$out/server.url")
for m in acp sdk print; do
	perf record -q -F 2000 -g -o "$out/$m.perf" -- "$out/protocols" -agent "$PWD/$out/agent" -url "$url" -runs "$runs" -only "$m" > /dev/null
	perf script -i "$out/$m.perf" -F comm,ip,sym 2>/dev/null | awk -v m="$m" -v runs="$runs" '
		BEGIN { RS = ""; FS = "\n" }
		$1 ~ /^agent/ {
			all++
			proto = 0; work = 0
			for (i = 2; i <= NF; i++) {
				if ($i ~ /coder\/acp-go-sdk|agent-dev\/agent\/acp\.|agent-dev\/agent\/sdkstream\.|cmd\.\(\*printer\)|cmd\.streamObject/) proto = 1
				if ($i ~ /agent-dev\/agent\/(cmd\.\(\*acp|cmd\.runSDKStream\.func|loop\.|turn\.|sessions\.|providers|conversation|tools)/) work = 1
			}
			if (proto && !work) layer++
		}
		END { printf "%-6s CPU of the agent process %6.1f ms a run; its protocol layer %5.1f ms a run (%d runs)\n", m, all / 2 / runs, layer / 2 / runs, runs }'
done
