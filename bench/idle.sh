#!/usr/bin/env bash
# CPU time and wake-ups of the idle interface, as a person leaves it: each
# binary runs in a 100x30 tmux pane against the scripted server; once its
# prompt is on the screen the script waits 5 s, then reads, 15 s apart, the
# process's CPU time (utime + stime of /proc/PID/stat) and its context
# switches (voluntary + nonvoluntary, summed over the threads in
# /proc/PID/task/*/status: each is a thread going to sleep or being
# preempted, so about one a wake-up). Runs of the binaries alternate, so
# all see the same load.
# Needs tmux: apt-get install -y tmux
# Usage: bench/idle.sh [RUNS] [BINARY...]   (default 3 runs of this tree's
# build; medians reported)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
out=bench/out
mkdir -p "$out"
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	CGO_ENABLED=0 go build -pgo=agent.pgo -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .
	bins=("$out/agent")
fi
go build -o "$out/scripted-server" ./bench/scripted-server

rm -f "$out/idle-server.url"
"$out/scripted-server" -addr 127.0.0.1:0 >"$out/idle-server.url" &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
while [ ! -s "$out/idle-server.url" ]; do sleep 0.05; done
url=$(head -1 "$out/idle-server.url")
tck=$(getconf CLK_TCK)
window=15

# cpu PID: user + system CPU time in milliseconds.
cpu() { sed "s/.*) //" "/proc/$1/stat" | awk -v t="$tck" '{print ($12 + $13) * 1000 / t}'; }
# switches PID: context switches of all the process's threads.
switches() { cat /proc/"$1"/task/*/status | awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n}'; }

# run SOCKET BINARY INDEX: prints "cpu_ms_per_s wakeups_per_s". Each binary
# has a data directory of its own (a newer binary's schema is refused by an
# older one), outside the directory it works in, as a person's is.
run() {
	local socket=$1 pid c0 c1 s0 s1
	mkdir -p "$work/repo" "$work/data-$3" "$work/config"
	tmux -L "$socket" new-session -d -s idle -x 100 -y 30 \
		"cd $work/repo && exec env TERM=xterm-256color XDG_DATA_HOME=$work/data-$3 XDG_CONFIG_HOME=$work/config $2 --base-url $url --model scripted"
	until tmux -L "$socket" capture-pane -p -t idle 2>/dev/null | grep -q "Ask about this repository"; do sleep 0.05; done
	pid=$(tmux -L "$socket" display -p -t idle '#{pane_pid}')
	sleep 5
	c0=$(cpu "$pid") s0=$(switches "$pid")
	sleep "$window"
	c1=$(cpu "$pid") s1=$(switches "$pid")
	tmux -L "$socket" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket"
	awk "BEGIN {printf \"%.1f %.0f\n\", ($c1 - $c0) / $window, ($s1 - $s0) / $window}"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for i in $(seq "$runs"); do
	for j in "${!bins[@]}"; do
		r=$(run "agent-idle-$$-$j-$i" "$(realpath "${bins[$j]}")" "$j")
		echo "run $i ${bins[$j]}: ${r% *} ms CPU/s, ${r#* } wake-ups/s" >&2
		echo "$r" >>"$work/$j.txt"
	done
done
for j in "${!bins[@]}"; do
	echo "${bins[$j]}: idle $(cut -d' ' -f1 "$work/$j.txt" | median) ms CPU/s," \
		"$(cut -d' ' -f2 "$work/$j.txt" | median) wake-ups/s (median of $runs, 5-20 s after the prompt)"
done
