#!/usr/bin/env bash
# The five-step headless task (issue 43's first row): list the files, search
# for a function, read its file, change a line, answer; each binary against
# the scripted server's -task model (bench/scripted-server/task.go), in a
# git repository of two Go files that is reset before every run. hyperfine
# runs each command's runs in a block, one command after the other (-N: no
# shell): compare the rows of one call; wall time is
# hyperfine's median, CPU the mean of user + system over the runs (all of
# the process's threads and children).
# Language servers are off for both (AGENT_LSP=off; Crush's auto_lsp
# false): an edit of a Go file would otherwise wait for gopls, which both
# start on their own. AGENT_LSP=on measures both with them.
# CHECKPOINTS=off runs agent with [checkpoints] enabled = false (Crush
# takes none). PRIOR=N runs each binary N times more before the
# measurement, so that its data directory holds N sessions of the project,
# as a daily user's does.
# PAIRED=1 runs the commands in turn instead (bench/paired.py: A B A B ...,
# each run after its reset, which is not timed) and prints, for each
# command, the median of its ratios to the last command's run of the same
# round, wall and CPU (user + system of the process and its children): a
# ratio that holds while the machine's speed drifts; and each command's
# mean wall and CPU time, which a cost of some runs only moves (agent's
# checkpoint of its session database, every three or four runs).
# Usage: bench/task.sh RUNS AGENT [AGENT2...] [crush=PATH]
#   e.g. bench/task.sh 30 /tmp/agent-old /tmp/agent-new crush=/tmp/crush
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/crush-config.sh
. bench/scripted.sh
. bench/task-repo.sh
runs=$1
shift
out=bench/out
scripted_server task -task
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
lsp=${AGENT_LSP:-off}
auto_lsp=false
if [ "$lsp" = on ]; then auto_lsp=true; fi

cmds=() names=() prep=()
i=0
for b in "$@"; do
	i=$((i + 1))
	case $b in
	crush=*)
		crush=$(realpath "${b#crush=}") dir=$work/crush
		task_repo "$dir"
		mkdir -p "$work/crush-config/crush" "$work/crush-data"
		crush_config "$work/crush-config" "$url" "$auto_lsp"
		cmds+=("env HOME=$work XDG_CONFIG_HOME=$work/crush-config XDG_DATA_HOME=$work/crush-data $crush run -q -c $dir swap-the-operands-of-Add")
		names+=(crush)
		;;
	*)
		agent=$(realpath "$b") dir=$work/agent-$i
		task_repo "$dir"
		mkdir -p "$work/data-$i" "$work/config-$i/agent"
		if [ "${CHECKPOINTS:-on}" = off ]; then
			printf '[checkpoints]\nenabled = false\n' >"$work/config-$i/agent/config.toml"
		fi
		cmds+=("env AGENT_LSP=$lsp XDG_DATA_HOME=$work/data-$i XDG_CONFIG_HOME=$work/config-$i $agent -C $dir --base-url $url --model scripted --no-stdin -p swap-the-operands-of-Add")
		names+=("$b")
		;;
	esac
	prep+=("git -C $dir checkout -q -- calc.go")
	# One run first: it must end with the file changed.
	for _ in $(seq "${PRIOR:-0}"); do
		${cmds[-1]} >/dev/null
		git -C "$dir" checkout -q -- calc.go
	done
	${cmds[-1]} >/dev/null
	if ! grep -q 'return b + a' "$dir/calc.go"; then
		echo "task.sh: $b did not change calc.go" >&2
		exit 1
	fi
	git -C "$dir" checkout -q -- calc.go
done

if [ -n "${PAIRED:-}" ]; then
	# The last command (Crush, when given) first: the ratios are to it.
	last=$((${#cmds[@]} - 1))
	args=(-m -r "$runs" -w 3 -p "${prep[$last]}" -n "${names[$last]}")
	for j in $(seq 0 $((last - 1))); do
		args+=(-p "${prep[$j]}" -n "${names[$j]}")
	done
	python3 bench/paired.py "${args[@]}" "${cmds[$last]}" "${cmds[@]:0:$last}"
	exit
fi

args=()
for j in "${!cmds[@]}"; do
	args+=(--prepare "${prep[$j]}" -n "${names[$j]}" "${cmds[$j]}")
done
hyperfine -N --warmup 3 --runs "$runs" --export-json "$out/task.json" "${args[@]}" >/dev/null
python3 - "$out/task.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
base = rs[-1]
for r in rs:
    cpu = (r["user"] + r["system"]) * 1000
    print(f"{r['command']:40s} wall median {r['median']*1000:7.1f} ms   CPU mean {cpu:7.1f} ms"
          f"   ratio to {base['command']}: wall {r['median']/base['median']:.2f}, CPU {cpu/((base['user']+base['system'])*1000):.2f}")
PY
