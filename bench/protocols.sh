#!/usr/bin/env bash
# The cost of the protocol front-ends at start: from the spawn to `agent acp`
# answering initialize and to its first agent_message_chunk, and to the
# Claude Agent SDK protocol's first streamed text, against `agent -p` on the
# same prompt (its first text_delta in stream-json), all answered by the
# local scripted server (a streamed "hello").
# Usage: bench/protocols.sh [RUNS [FLAGS]]   (default 30 runs each; medians reported;
#   FLAGS go to bench/protocols, e.g. -wait-initialize: session/new once initialize is answered)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
out=bench/out
mkdir -p "$out"
go build -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
go build -o "$out/scripted-server" ./bench/scripted-server
go build -o "$out/protocols" ./bench/protocols
rm -f "$out/server.url"
"$out/scripted-server" -addr 127.0.0.1:0 > "$out/server.url" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
while [ ! -s "$out/server.url" ]; do sleep 0.05; done
"$out/protocols" -agent "$PWD/$out/agent" -url "$(head -1 "$out/server.url")" -runs "$runs" "${@:2}"
