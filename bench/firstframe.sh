#!/usr/bin/env bash
# Time from starting the interface in a 100x30 tmux pane to the drawn prompt
# ("Ask about this repository" on the screen), as a person would see it. The
# pane is polled with tmux capture-pane in a tight loop (each poll costs a
# few ms, which bounds the resolution). The same measurement of a shell
# command that prints the prompt text at once gives tmux's own share; the
# difference is the agent's.
# Needs tmux: apt-get install -y tmux
# Usage: bench/firstframe.sh [RUNS]   (default 30; medians reported)
# AGENT_ARGS adds flags to the agent's command line (bench/mcp.sh passes a
# config with MCP servers). AGENT=PATH measures that agent binary instead of
# building this tree (to compare with an older build).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
out=bench/out
mkdir -p "$out"
if [ -z "${AGENT:-}" ]; then
	CGO_ENABLED=0 go build -pgo=agent.pgo -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
fi
go build -o "$out/scripted-server" ./bench/scripted-server

rm -f "$out/server.url"
"$out/scripted-server" -addr 127.0.0.1:0 >"$out/server.url" &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
while [ ! -s "$out/server.url" ]; do sleep 0.05; done
url=$(head -1 "$out/server.url")
agent=$(realpath "${AGENT:-$out/agent}")

# frame COMMAND: prints the microseconds from starting COMMAND in a new tmux
# session to the prompt text on its screen. Each run has its own tmux server
# (socket), so one still shutting down never meets the next.
n=0
frame() {
	local start now socket
	n=$((n + 1))
	socket="agent-firstframe-$$-$n"
	start=$(date +%s%N)
	tmux -L "$socket" new-session -d -s first -x 100 -y 30 "$1"
	until tmux -L "$socket" capture-pane -p -t first 2>/dev/null | grep -q "Ask about this repository"; do
		now=$(date +%s%N)
		if [ $(((now - start) / 1000000)) -gt 10000 ]; then
			echo "no prompt after 10 s:" >&2
			tmux -L "$socket" capture-pane -p -t first >&2
			exit 1
		fi
	done
	now=$(date +%s%N)
	tmux -L "$socket" kill-server 2>/dev/null || true
	echo $(((now - start) / 1000))
}

median() { sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.1f", m/1000}'; }

cmd="cd $work && exec env TERM=xterm-256color XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config $agent --base-url $url --model scripted ${AGENT_ARGS:-}"
shell="printf 'Ask about this repository'; exec sleep 30"
frame "$cmd" >/dev/null # warm the page cache
agent_us=$(for _ in $(seq "$runs"); do frame "$cmd"; done | median)
shell_us=$(for _ in $(seq "$runs"); do frame "$shell"; done | median)
echo "first frame in tmux (median of $runs): agent $agent_us ms; a shell printing the prompt $shell_us ms" \
	"(tmux's share); the agent's own: $(awk "BEGIN {print $agent_us - $shell_us}") ms"
