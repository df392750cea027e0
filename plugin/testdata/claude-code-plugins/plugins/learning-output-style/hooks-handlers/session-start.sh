#!/usr/bin/env bash
# Adds the mode's instructions to the session, as additionalContext.
cat <<EOF
{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "LEARNING-MODE from $CLAUDE_PLUGIN_ROOT"}}
EOF
exit 0
