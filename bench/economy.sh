#!/usr/bin/env bash
# Request economy of two three-turn sessions (-p, then -c -p twice; nine
# tool calls each) in pick, swap and all mode, without and with the two
# reference MCP servers configured (installed as e2e/mcp.go says):
# requests, bytes sent, the share that
# a provider's prefix cache serves (tools first, as providers lay requests
# out) and billable bytes with cache reads at a tenth. See
# e2e/sessions/economy_test.go for the sessions and the scripted model.
# Usage: bench/economy.sh [REV]   (REV: measure the agent built at that git
# revision instead of the work tree, with today's scenario, in the modes
# $MODES names, "all pick" unless set: builds before issue 29 have no swap)
set -euo pipefail
cd "$(dirname "$0")/.."
env=()
if [ $# -gt 0 ]; then
  out=$(mktemp -d)
  git worktree add -q --detach "$out/src" "$1"
  trap 'git worktree remove --force "$out/src"; rm -rf "$out"' EXIT
  # A revision from before agent.pgo is built without a profile.
  (cd "$out/src" && pgo=off && if [ -f agent.pgo ]; then pgo=agent.pgo; fi &&
    CGO_ENABLED=0 go build -pgo=$pgo -tags grpcnotrace -ldflags "-s -w" -o "$out/agent" .)
  env=(AGENT_E2E_BINARY="$out/agent" AGENT_ECONOMY_MODES="${MODES:-all pick}")
fi
env AGENT_ECONOMY_FULL=1 "${env[@]}" go test -count=1 -run 'TestRequestEconomyOfAThreeTurnSession' -v ./e2e/sessions/ | grep -E 'session, (pick|swap|all) mode'
