#!/usr/bin/env bash
# Writes agent.pgo, the CPU profile the agent is built with (go build
# -pgo=agent.pgo: profile-guided optimization; the README's build,
# goreleaser's, .ci/run's and the e2e tests' release build name it; not
# default.pgo, which go test ./... and go vet ./... would apply to the root
# package's dependencies, compiling each a second time). The profile is gathered from the runs the
# speed goals measure (issue 43), each run writing its own profile through
# AGENT_CPUPROFILE (internal/cpuprofile), then merged with go tool pprof:
#   - the five-step headless task of bench/task.sh (list, grep, read, edit,
#     answer; the session database and the checkpoints as a daily user has
#     them), TASK runs;
#   - a -p run that runs one sandboxed command (`true`, workspace-write, as
#     bench/sandbox-run.sh), BASH runs.
# The agent profiled is built with -pgo=off, so that the profile does not
# feed on itself. At 100 samples a second a run gives a few samples; the
# defaults give a few thousand in about two minutes.
# Usage: bench/pgo.sh [TASK] [BASH]   (defaults 600 and 200); then commit
# agent.pgo with the figures it moved (BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/scripted.sh
. bench/task-repo.sh
task_runs=${1:-600}
bash_runs=${2:-200}
work=$(mktemp -d)
servers=()
trap 'kill "${servers[@]}" 2>/dev/null; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -pgo=off -tags grpcnotrace -ldflags "-s -w" -o "$work/agent" .
mkdir -p "$work/prof" "$work/config/agent" "$work/config-nock/agent"
printf '[checkpoints]\nenabled = false\n' >"$work/config-nock/agent/config.toml"

repo="$work/task"
task_repo "$repo"

scripted_server pgo-task -task
servers+=("$server")
for i in $(seq "$task_runs"); do
	AGENT_CPUPROFILE="$work/prof/task-$i.pprof" AGENT_LSP=off XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
		"$work/agent" -C "$repo" --base-url "$url" --model scripted --no-stdin -p swap-the-operands-of-Add >/dev/null
	git -C "$repo" checkout -q -- calc.go
done

box="$work/box"
mkdir -p "$box"
git -C "$box" init -q
echo readme >"$box/README"
git -C "$box" add README
git -C "$box" -c user.email=bench@example.com -c user.name=bench commit -qm readme
scripted_server pgo-bash -bash true
servers+=("$server")
for i in $(seq "$bash_runs"); do
	AGENT_CPUPROFILE="$work/prof/bash-$i.pprof" AGENT_LSP=off XDG_DATA_HOME="$work/data-bash" XDG_CONFIG_HOME="$work/config-nock" \
		"$work/agent" -C "$box" --base-url "$url" --model scripted --no-stdin --allow-bash --sandbox workspace-write -p run-true >/dev/null
done

go tool pprof -proto "$work"/prof/*.pprof >"$work/merged.pgo" 2>/dev/null
mv "$work/merged.pgo" agent.pgo
go tool pprof -top -nodecount=0 agent.pgo 2>/dev/null | sed -n 's/^Duration: .*Total samples = /samples: /p'
echo "wrote agent.pgo ($(stat -c %s agent.pgo) bytes)"
