#!/usr/bin/env bash
# Idle CPU and wake-ups of agent and Crush side by side, runs alternating:
# each in a 100x30 tmux pane against the scripted server, measured 5-20 s
# after its prompt is drawn (as bench/idle.sh measures agent alone).
# Crush gets a crush.json naming the scripted server (as bench/stream.sh).
# Usage: bench/idle-crush.sh AGENT CRUSH [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/crush-config.sh
agent=$(realpath "$1") crush=$(realpath "$2") runs=${3:-3}
go build -o bench/out/scripted-server ./bench/scripted-server
out=bench/out
rm -f "$out/idle-crush.url"
"$out/scripted-server" -addr 127.0.0.1:0 >"$out/idle-crush.url" &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
while [ ! -s "$out/idle-crush.url" ]; do sleep 0.05; done
url=$(head -1 "$out/idle-crush.url")
tck=$(getconf CLK_TCK)
cpu() { sed "s/.*) //" "/proc/$1/stat" | awk -v t="$tck" '{print ($12 + $13) * 1000 / t}'; }
switches() { cat /proc/"$1"/task/*/status | awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n}'; }
mkdir -p "$work/crush" "$work/crush-config/crush" "$work/crush-data" "$work/a"
crush_config "$work/crush-config" "$url"
run() { # socket cmd ready
	local socket=$1 pid c0 c1 s0 s1
	tmux -L "$socket" new-session -d -s idle -x 100 -y 30 "$2"
	until tmux -L "$socket" capture-pane -p -t idle 2>/dev/null | grep -q "$3"; do sleep 0.05; done
	pid=$(tmux -L "$socket" display -p -t idle '#{pane_pid}')
	sleep 5
	c0=$(cpu "$pid") s0=$(switches "$pid")
	sleep 15
	c1=$(cpu "$pid") s1=$(switches "$pid")
	tmux -L "$socket" kill-server 2>/dev/null || true
	awk "BEGIN {printf \"%.1f %.0f\n\", ($c1 - $c0) / 15, ($s1 - $s0) / 15}"
}
for i in $(seq "$runs"); do
	echo "agent (ms CPU/s, wake-ups/s): $(run idle-a-$i "cd $work/a && exec env TERM=xterm-256color XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config $agent --base-url $url --model scripted" "Ask about this repository")"
	echo "crush (ms CPU/s, wake-ups/s): $(run idle-c-$i "cd $work/crush && exec env TERM=xterm-256color HOME=$work XDG_CONFIG_HOME=$work/crush-config XDG_DATA_HOME=$work/crush-data $crush" "ctrl+c quit")"
done
