#!/usr/bin/env bash
# One sandboxed command end to end (issue 43): a whole `-p` run whose model
# (bench/scripted-server -bash true) calls bash once to run `true`, with
# --sandbox off and with workspace-write (the network off, the process
# bound and the session's tmpfs, as the agent runs by default), checkpoints
# off. The difference is what the sandbox adds to a run that runs one
# command: its set-up at the first command, the command under the helper,
# and its close. The working directory is a repository with a commit (an
# index, whose gitlinks the git guard lists). Each binary keeps a data
# directory of its own (a newer
# binary's schema is refused by an older one). hyperfine -N (each command's
# runs in a block, one command after the other: compare the rows of one
# call); prints wall (median) and CPU (user + system, mean).
# PAIRED=1 runs the commands in turn instead (bench/paired.py: each binary
# off, then workspace-write, round after round) and prints, for each
# binary, the median of the rounds' differences: a figure that holds while
# the machine's speed drifts.
# DELAY=5ms streams every chunk of the model's answers that much apart (its
# bash call's too: about nine chunks), as a model does: the sandbox's set-up
# begins at the call's first chunk (host's preparingProvider) and goes on
# while the rest streams, so the difference is then what a command costs
# once set up, with what of the set-up the stream did not hide.
# Usage: bench/sandbox-run.sh RUNS AGENT [AGENT2...]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/scripted.sh
runs=$1
shift
out=bench/out
scripted_server bash -bash true ${DELAY:+-delay "$DELAY"}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/repo" "$work/config/agent"
git -C "$work/repo" init -q
echo readme >"$work/repo/README"
git -C "$work/repo" add README
git -C "$work/repo" -c user.email=bench@example.com -c user.name=bench commit -qm readme
printf '[checkpoints]\nenabled = false\n' >"$work/config/agent/config.toml"
args=() cmds=()
i=0
for b in "$@"; do
	i=$((i + 1))
	agent=$(realpath "$b")
	for mode in off workspace-write; do
		cmd="env AGENT_LSP=off XDG_DATA_HOME=$work/data-$i XDG_CONFIG_HOME=$work/config $agent -C $work/repo --base-url $url --model scripted --no-stdin --allow-bash --sandbox $mode -p run-true"
		$cmd >/dev/null # one run first: it must succeed
		args+=(-n "$b $mode" "$cmd")
		cmds+=("$cmd")
	done
done
if [ -n "${PAIRED:-}" ]; then
	names=()
	for b in "$@"; do names+=(-n "$b off" -n "$b workspace-write"); done
	python3 bench/paired.py -r "$runs" -w 3 -D "${names[@]}" "${cmds[@]}"
	exit
fi
hyperfine -N --warmup 3 --runs "$runs" --export-json "$out/sandbox-run.json" "${args[@]}" >/dev/null
python3 - "$out/sandbox-run.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
for off, ww in zip(rs[0::2], rs[1::2]):
    cpu = lambda r: (r["user"] + r["system"]) * 1000
    name = off["command"].rsplit(" ", 1)[0]
    print(f"{name:40s} off {off['median']*1000:6.1f} ms ({cpu(off):5.1f} CPU)  workspace-write {ww['median']*1000:6.1f} ms ({cpu(ww):5.1f} CPU)"
          f"  added: {(ww['median']-off['median'])*1000:5.1f} ms wall, {cpu(ww)-cpu(off):5.1f} ms CPU")
PY
