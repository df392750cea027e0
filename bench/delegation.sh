#!/usr/bin/env bash
# The research task (where each of five functions of this repository is
# used) in the main loop and with five subagents: requests, the parent's
# context at its last request, input and billable tokens. See
# e2e/sessions/delegation_test.go for the task and the scripted model.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run 'TestResearchDelegatedToSubagents' -v ./e2e/sessions/ | grep -E 'research, '
