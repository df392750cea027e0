#!/usr/bin/env bash
# MCP start-up: the interface's first frame and a headless `-p hi` with the
# two reference servers configured, against none; and how long the servers
# themselves take to be ready (`agent mcp list`).
# Needs tmux, hyperfine, node and the servers: npm install --no-save
#   --prefix out/mcp-servers @modelcontextprotocol/server-everything@2026.8.31
#   @modelcontextprotocol/server-filesystem@2026.8.31   (.ci/run does)
# Usage: bench/mcp.sh [RUNS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
bin=$(realpath out/mcp-servers/node_modules/.bin)
cfg=$(mktemp -d)/config.toml
cat >"$cfg" <<TOML
[mcp.servers.everything]
command = "$bin/mcp-server-everything"
[mcp.servers.fs]
command = "$bin/mcp-server-filesystem"
args = ["/tmp"]
TOML
echo "== first frame without MCP servers"
bench/firstframe.sh "$runs"
echo "== first frame with both reference servers"
AGENT_ARGS="--config $cfg" bench/firstframe.sh "$runs"
CGO_ENABLED=0 go build -pgo=agent.pgo -tags grpcnotrace -ldflags "-s -w" -o bench/out/agent . && go build -o bench/out/scripted-server ./bench/scripted-server
rm -f bench/out/mcp-server.url
bench/out/scripted-server -addr 127.0.0.1:0 >bench/out/mcp-server.url 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null' EXIT
while [ ! -s bench/out/mcp-server.url ]; do sleep 0.05; done
url=$(head -1 bench/out/mcp-server.url)
echo "== headless -p hi, and the servers' own start (agent mcp list)"
hyperfine -N -w 2 -r "$runs" \
	"bench/out/agent --base-url $url --model scripted -p hi --config /dev/null" \
	"bench/out/agent --base-url $url --model scripted -p hi --config $cfg" \
	"bench/out/agent mcp list --config $cfg"
