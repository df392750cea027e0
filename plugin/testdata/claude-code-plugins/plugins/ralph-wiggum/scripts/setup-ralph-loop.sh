#!/bin/bash
# Fixture: starts a loop.
mkdir -p .claude && printf -- "---\niteration: 1\n---\n%s\n" "$*" > .claude/ralph-loop.local.md
