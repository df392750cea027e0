#!/bin/bash
# Fixture stop hook: lets the turn end unless a loop is active.
cat >/dev/null
if [[ ! -f .claude/ralph-loop.local.md ]]; then
  exit 0
fi
echo "the loop goes on" >&2
exit 2
