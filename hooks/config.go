// Package hooks runs the shell commands a person (or a repository they
// trust) attaches to the agent's events, in the shape Claude Code reads
// them (docs.claude.com, "Hooks reference"): a hook gets a JSON object on
// standard input, and answers with its exit status (0 go on, 2 block,
// another a non-blocking error) and, optionally, a JSON object on standard
// output (decision, reason, continue, hookSpecificOutput). The package
// loads hooks from Claude Code's settings files and from the agent's own
// configuration, matches them to tool names (Claude Code's names match the
// agent's equivalent tools), runs those of one event in parallel with a
// timeout, and sums up their answers per event. It knows nothing of the
// loop: package cmd wires each event at one call site.
package hooks

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// The events a hook can be attached to (Claude Code's names).
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SubagentStop     = "SubagentStop"
	SessionStart     = "SessionStart"
	SessionEnd       = "SessionEnd"
	PreCompact       = "PreCompact"
	Notification     = "Notification"
	// PermissionRequest runs where a person would be asked about a call:
	// its hooks may allow or deny it for them.
	PermissionRequest = "PermissionRequest"
	// PostToolUseFailure runs after a call whose result is an error
	// (PostToolUse runs after the others).
	PostToolUseFailure = "PostToolUseFailure"
	// SubagentStart runs as a subagent starts; its context goes into the
	// subagent's first message.
	SubagentStart = "SubagentStart"
	// PostCompact runs after a compaction was saved.
	PostCompact = "PostCompact"
)

// Types of hook: a command run with the event's JSON on standard input,
// or a prompt the session's model judges (Claude Code's "prompt" hooks).
const (
	TypeCommand = "command"
	TypePrompt  = "prompt"
)

// The kinds of Notification (Input.NotificationType, which its matcher
// selects on), as Claude Code names them.
const (
	// NotifyPermission: a tool call waits for the person's approval.
	NotifyPermission = "permission_prompt"
	// NotifyIdle: the interface has waited for a prompt since the last
	// turn ended, for the configured idle time (60 s by default).
	NotifyIdle = "idle_prompt"
)

// Events lists every event, in the order a session meets them.
func Events() []string {
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, Notification,
		SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd}
}

// DefaultTimeout is how long a hook may run when its definition gives no
// timeout (Claude Code's default).
const DefaultTimeout = 60 * time.Second

// Hook is one command attached to an event.
type Hook struct {
	// Event is one of Events().
	Event string
	// Matcher selects what the hook applies to: tool names for the tool
	// events (see Match), the source of SessionStart (startup, resume,
	// clear, compact), the trigger of PreCompact (manual, auto); "" or
	// "*" matches everything.
	Matcher string
	// Type is TypeCommand ("" too) or TypePrompt.
	Type string
	// Command is the shell command (run with bash -c, else sh -c).
	Command string
	// Prompt is a prompt hook's question to the model: $ARGUMENTS in it
	// becomes the event's JSON (which is appended when it has none).
	Prompt string
	// Timeout bounds one run; 0 means DefaultTimeout.
	Timeout time.Duration
	// Source is the file the hook was read from, for /hooks, agent
	// doctor and every message about it.
	Source string
	// Project is true for a hook a repository defines: it runs only once
	// the person trusts it.
	Project bool
	// Plugin names the installed plugin (name@marketplace) the hook comes
	// from; "" for a settings file's. A plugin was trusted as a whole when
	// the person installed it; its hook that gives no answer is a warning
	// naming the plugin, never a denial (Claude Code's semantics for a
	// hook that fails).
	Plugin string
	// Env are variables (NAME=value) the hook's process gets beside the
	// runner's: a plugin's CLAUDE_PLUGIN_ROOT.
	Env []string
}

// Definition is the canonical text of what the hook runs, the key of the
// person's trust answer: event, matcher, command and timeout.
func (h Hook) Definition() string {
	b, _ := json.Marshal(struct {
		Event   string `json:"event"`
		Matcher string `json:"matcher,omitempty"`
		Type    string `json:"type,omitempty"`
		Command string `json:"command"`
		Prompt  string `json:"prompt,omitempty"`
		Timeout int64  `json:"timeout,omitempty"`
	}{h.Event, h.Matcher, h.typeIfPrompt(), h.Command, h.Prompt, int64(h.Timeout / time.Second)})
	return string(b)
}

// Runs is what the hook runs, for a listing or a question: its command,
// or "prompt: " and its prompt.
func (h Hook) Runs() string {
	if h.Type == TypePrompt {
		return "prompt: " + strings.Join(strings.Fields(h.Prompt), " ")
	}
	return h.Command
}

// typeIfPrompt is TypePrompt for a prompt hook, "" for a command hook
// (so that the definitions of command hooks trusted before prompt hooks
// existed stay the same).
func (h Hook) typeIfPrompt() string {
	if h.Type == TypePrompt {
		return TypePrompt
	}
	return ""
}

// DefaultPromptTimeout bounds a prompt hook's judgement when its
// definition gives no timeout (Claude Code's 30 s).
const DefaultPromptTimeout = 30 * time.Second

// timeout is the hook's bound.
func (h Hook) timeout() time.Duration {
	switch {
	case h.Timeout > 0:
		return h.Timeout
	case h.Type == TypePrompt:
		return DefaultPromptTimeout
	}
	return DefaultTimeout
}

// claudeSettings is the part of Claude Code's settings.json (and of a
// plugin's hooks/hooks.json) that holds hooks: {"hooks": {"EVENT":
// [{"matcher": "...", "hooks": [{"type": "command", "command": "...",
// "timeout": 60}]}]}}. A hook's fields are kept raw so that those agent
// does not read can be named.
type claudeSettings struct {
	Hooks map[string][]struct {
		Matcher string                       `json:"matcher"`
		Hooks   []map[string]json.RawMessage `json:"hooks"`
	} `json:"hooks"`
}

// skippedFields are the fields of a command hook that change when or how
// it runs in ways agent does not follow: such a hook is skipped with a
// warning, since running it on every call, or in the foreground, would
// do what its author did not mean.
var skippedFields = map[string]string{
	"if":          "its if condition is not read by agent (the hook would run on every call its matcher selects)",
	"async":       "agent does not run hooks in the background",
	"asyncRewake": "agent does not run hooks in the background",
}

// readFields are the fields of a command hook agent reads, and those that
// come with a skipped field (named once, with it).
var readFields = []string{"type", "command", "prompt", "timeout", "rewakeMessage", "rewakeSummary"}

// LoadClaude reads the hooks of a Claude Code settings file (path); a
// missing file has none. See ParseClaude (command and prompt hooks are
// read; "http" and "agent" hooks are skipped and named); a file that is
// not valid JSON is an error.
func LoadClaude(path string, project bool) (hs []Hook, warnings []string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return ParseClaude(data, path, project)
}

// ParseClaude reads the hooks of data, a JSON object with Claude Code's
// "hooks" key (a settings file, a plugin's hooks/hooks.json), read from
// source. Hooks of an unknown event or of a type other than "command"
// (Claude Code's "prompt" hooks ask a model) are skipped and named among
// the warnings, as are hooks with a field that changes when or how they
// run (if, async, asyncRewake); any other field agent does not read is
// named once per file. Data that is not a JSON object of that shape is an
// error naming source. project marks the hooks as a repository's.
func ParseClaude(data []byte, source string, project bool) (hs []Hook, warnings []string, err error) {
	var s claudeSettings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	unread := map[string]bool{}
	for _, event := range slices.Sorted(maps.Keys(s.Hooks)) {
		if !slices.Contains(Events(), event) {
			warnings = append(warnings, fmt.Sprintf("%s: hooks of event %q skipped: agent does not have that event", source, event))
			continue
		}
		for _, group := range s.Hooks[event] {
			for _, raw := range group.Hooks {
				var h struct {
					Type    string  `json:"type"`
					Command string  `json:"command"`
					Prompt  string  `json:"prompt"`
					Timeout float64 `json:"timeout"` // seconds
				}
				b, _ := json.Marshal(raw)
				if err := json.Unmarshal(b, &h); err != nil {
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook skipped: %v", source, event, err))
					continue
				}
				switch h.Type {
				case "", TypeCommand:
					if h.Command == "" {
						continue
					}
				case TypePrompt:
					if strings.TrimSpace(h.Prompt) == "" {
						warnings = append(warnings, fmt.Sprintf("%s: a %s prompt hook without a prompt skipped", source, event))
						continue
					}
				default:
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook of type %q skipped: agent runs command and prompt hooks", source, event, h.Type))
					continue
				}
				if why := skipped(raw); why != "" {
					warnings = append(warnings, fmt.Sprintf("%s: %s hook `%s` skipped: %s", source, event, short(cmp.Or(h.Command, h.Prompt)), why))
					continue
				}
				for k := range raw {
					if _, honoured := skippedFields[k]; !honoured && !slices.Contains(readFields, k) { // false: what agent does
						unread[k] = true
					}
				}
				hs = append(hs, Hook{Event: event, Matcher: group.Matcher, Type: h.Type, Command: h.Command, Prompt: h.Prompt,
					Timeout: time.Duration(h.Timeout * float64(time.Second)), Source: source, Project: project})
			}
		}
	}
	if len(unread) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: hooks' fields not read by agent: %s", source, strings.Join(slices.Sorted(maps.Keys(unread)), ", ")))
	}
	return hs, warnings, nil
}

// skipped says why a hook with raw's fields is skipped ("" when it runs).
func skipped(raw map[string]json.RawMessage) string {
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		why, ok := skippedFields[k]
		if !ok {
			continue
		}
		if string(raw[k]) == "false" || string(raw[k]) == "null" || string(raw[k]) == `""` {
			continue
		}
		return k + ": " + why
	}
	return ""
}

// TOML is one [[hooks.EVENT]] entry of the agent's configuration file:
// matcher, command and timeout in seconds.
type TOML struct {
	Matcher string  `toml:"matcher"`
	Command string  `toml:"command"`
	Timeout float64 `toml:"timeout"`
}

// FromTOML turns the [[hooks.EVENT]] tables of the configuration file at
// source into hooks. An unknown event or an entry without a command is an
// error that names it.
func FromTOML(tables map[string][]TOML, source string, project bool) ([]Hook, error) {
	var hs []Hook
	for _, event := range slices.Sorted(maps.Keys(tables)) {
		if !slices.Contains(Events(), event) {
			return nil, fmt.Errorf("hooks.%s: unknown event; the events are %v", event, Events())
		}
		for i, t := range tables[event] {
			if t.Command == "" {
				return nil, fmt.Errorf("hooks.%s[%d]: no command", event, i)
			}
			hs = append(hs, Hook{Event: event, Matcher: t.Matcher, Command: t.Command,
				Timeout: time.Duration(t.Timeout * float64(time.Second)), Source: source, Project: project})
		}
	}
	return hs, nil
}
