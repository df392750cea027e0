#!/usr/bin/env bash
# CPU time of the interface while it streams one long markdown answer, as a
# person runs it: in a 100x30 tmux pane, against the scripted server
# streaming bench/testdata/stream.md (20,000 bytes) in 5,000 deltas of 4
# bytes, one every millisecond. For each run the script starts the program,
# waits for its prompt, reads its CPU time (utime + stime from
# /proc/PID/stat), sends a prompt, waits for the answer's last line
# ("STREAM-BENCH-END") on the screen and for the CPU time to settle, and
# reads it again. The difference is the stream's CPU; the total includes
# start-up. Runs of the agent and of Crush (when its binary is given)
# alternate, so both see the same load.
# Needs tmux: apt-get install -y tmux
# Usage: bench/stream.sh [RUNS] [CRUSH_BINARY]   (default 5 runs; medians reported)
# AGENT=PATH measures that agent binary instead of building this tree (to
# compare with an older build).
# Crush runs in an empty directory with a crush.json in its own
# XDG_CONFIG_HOME naming the scripted server as an openai-compat provider
# (so it shows no onboarding and no project initialisation).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/crush-config.sh
runs=${1:-5}
crush=${2:-}
out=bench/out
mkdir -p "$out"
if [ -z "${AGENT:-}" ]; then
	go build -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
fi
go build -o "$out/scripted-server" ./bench/scripted-server

rm -f "$out/stream-server.url"
# Requests without tools (Crush's title request) get a short answer, so only
# the answer the person sees streams.
"$out/scripted-server" -addr 127.0.0.1:0 -file bench/testdata/stream.md -piece 4 -delay 1ms \
	-title "Streaming benchmark" >"$out/stream-server.url" &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
while [ ! -s "$out/stream-server.url" ]; do sleep 0.05; done
url=$(head -1 "$out/stream-server.url")
agent=$(realpath "${AGENT:-$out/agent}")
tck=$(getconf CLK_TCK)

# cpu PID: the process's user + system CPU time in milliseconds.
cpu() { sed "s/.*) //" "/proc/$1/stat" | awk -v t="$tck" '{print ($12 + $13) * 1000 / t}'; }
cpus() { sed "s/.*) //" "/proc/$1/stat" | awk -v t="$tck" '{print "user", $12 * 1000 / t, "sys", $13 * 1000 / t}' >&2; }

# wait_for SOCKET TEXT SECONDS: polls the pane until TEXT shows.
wait_for() {
	local deadline=$((SECONDS + $3))
	until tmux -L "$1" capture-pane -p -t bench 2>/dev/null | grep -q "$2"; do
		if [ $SECONDS -ge $deadline ]; then
			echo "no \"$2\" after $3 s:" >&2
			tmux -L "$1" capture-pane -p -t bench >&2
			return 1
		fi
		sleep 0.1
	done
}

# run NAME COMMAND READY: one measured run of COMMAND in the tmux server
# NAME (a socket of its own, so one shutting down never meets the next);
# prints "stream_ms total_ms wall_ms".
run() {
	local socket=$1 pid before after start end prev
	tmux -L "$socket" new-session -d -s bench -x 100 -y 30 "$2"
	wait_for "$socket" "$3" 20 || { tmux -L "$socket" kill-server 2>/dev/null; return 1; }
	pid=$(tmux -L "$socket" display -p -t bench '#{pane_pid}')
	sleep 0.5 # let start-up work (the first frames, background probes) finish
	before=$(cpu "$pid")
	start=$(date +%s%N)
	tmux -L "$socket" send-keys -t bench "Explain the handlers"
	tmux -L "$socket" send-keys -t bench Enter
	wait_for "$socket" "STREAM-BENCH-END" 120 || { tmux -L "$socket" kill-server 2>/dev/null; return 1; }
	end=$(date +%s%N)
	# The last frames and the session's bookkeeping: wait until the CPU
	# time stops moving (two equal readings 300 ms apart).
	prev=-1
	after=$(cpu "$pid")
	while [ "$after" != "$prev" ]; do
		prev=$after
		sleep 0.3
		after=$(cpu "$pid")
	done
	tmux -L "$socket" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket" # kill-server leaves the socket file
	echo "$(awk "BEGIN {print $after - $before}") $after $(((end - start) / 1000000))"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

agent_cmd="cd $work/agent && exec env TERM=xterm-256color XDG_DATA_HOME=$work/agent-data XDG_CONFIG_HOME=$work/agent-config $agent --base-url $url --model scripted"
mkdir -p "$work/agent"
if [ -n "$crush" ]; then
	crush=$(realpath "$crush")
	mkdir -p "$work/crush" "$work/crush-config/crush" "$work/crush-data"
	crush_config "$work/crush-config" "$url"
	crush_cmd="cd $work/crush && exec env TERM=xterm-256color HOME=$work XDG_CONFIG_HOME=$work/crush-config XDG_DATA_HOME=$work/crush-data $crush"
fi

: >"$work/agent.txt"
: >"$work/crush.txt"
for i in $(seq "$runs"); do
	r=$(run "agent-stream-$$-agent-$i" "$agent_cmd" "Ask about this repository")
	echo "run $i agent: stream ${r%% *} ms CPU (total, wall ms: ${r#* })" >&2
	echo "$r" >>"$work/agent.txt"
	if [ -n "$crush" ]; then
		r=$(run "agent-stream-$$-crush-$i" "$crush_cmd" "ctrl+c quit")
		echo "run $i crush: stream ${r%% *} ms CPU (total, wall ms: ${r#* })" >&2
		echo "$r" >>"$work/crush.txt"
	fi
done

agent_ms=$(cut -d' ' -f1 "$work/agent.txt" | median)
echo "agent: CPU while streaming ${agent_ms} ms (median of $runs; total with start-up" \
	"$(cut -d' ' -f2 "$work/agent.txt" | median) ms; wall $(cut -d' ' -f3 "$work/agent.txt" | median) ms)"
if [ -n "$crush" ]; then
	crush_ms=$(cut -d' ' -f1 "$work/crush.txt" | median)
	echo "crush: CPU while streaming ${crush_ms} ms (median of $runs; total with start-up" \
		"$(cut -d' ' -f2 "$work/crush.txt" | median) ms; wall $(cut -d' ' -f3 "$work/crush.txt" | median) ms)"
	echo "agent / crush: $(awk "BEGIN {printf \"%.2f\", $agent_ms / $crush_ms}")"
fi
