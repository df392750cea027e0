// Package claudesettings reads Claude Code's settings files
// (code.claude.com/docs/en/settings): ~/.claude/settings.json (the
// user's), and a repository's .claude/settings.json (shared) and
// .claude/settings.local.json (personal). It reads what agent honours
// (permissions, env, model, statusLine, includeCoAuthoredBy, the
// .mcp.json approvals, enabledPlugins; hooks are package hooks' to read)
// and names every other key once, so that nothing is ignored silently.
package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// File is one settings file as read.
type File struct {
	// Path is the file; Project is true for a repository's (its rules may
	// only restrict until the person trusts the repository).
	Path    string
	Project bool
	// Permissions are its permission rules.
	Permissions Permissions `json:"permissions"`
	// Env are variables for the commands, hooks and status line the
	// session runs.
	Env map[string]string `json:"env"`
	// Model is the model the session runs on when agent's own
	// configuration names none.
	Model string `json:"model"`
	// StatusLine is the command whose output is the interface's status
	// line.
	StatusLine *StatusLine `json:"statusLine"`
	// IncludeCoAuthoredBy asks for a Co-Authored-By trailer in the
	// commits the model writes (nil: not set).
	IncludeCoAuthoredBy *bool `json:"includeCoAuthoredBy"`
	// EnabledMcpjsonServers and DisabledMcpjsonServers approve or refuse
	// servers of the repository's .mcp.json by name;
	// EnableAllProjectMcpServers approves them all.
	EnabledMcpjsonServers      []string `json:"enabledMcpjsonServers"`
	DisabledMcpjsonServers     []string `json:"disabledMcpjsonServers"`
	EnableAllProjectMcpServers *bool    `json:"enableAllProjectMcpServers"`
	// EnabledPlugins turns installed plugins on or off ("name@marketplace":
	// true).
	EnabledPlugins map[string]bool `json:"enabledPlugins"`
	// Unsupported are the file's keys agent does not honour, each with
	// why, sorted.
	Unsupported []string `json:"-"`
}

// Permissions are Claude Code's permission rules (see Rule for their
// syntax).
type Permissions struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
	// DefaultMode and AdditionalDirectories are read to be named: agent's
	// mode comes from --permission-mode, its extra roots from [sandbox].
	DefaultMode           string   `json:"defaultMode"`
	AdditionalDirectories []string `json:"additionalDirectories"`
}

// StatusLine is the statusLine setting: a command run with the session's
// state as JSON on standard input, whose first line of output is shown.
type StatusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Padding is the spaces before the line, in columns.
	Padding int `json:"padding"`
}

// handled are the keys this package or package hooks reads.
var handled = map[string]bool{
	"$schema": true, "permissions": true, "env": true, "model": true, "statusLine": true, "includeCoAuthoredBy": true,
	"enabledMcpjsonServers": true, "disabledMcpjsonServers": true, "enableAllProjectMcpServers": true,
	"enabledPlugins": true, "hooks": true,
}

// notHonoured says why agent leaves a known Claude Code key alone.
var notHonoured = map[string]string{
	"apiKeyHelper":                 "agent reads its key from the environment, and runs no program for it",
	"awsAuthRefresh":               "no Bedrock login",
	"awsCredentialExport":          "no Bedrock login",
	"cleanupPeriodDays":            "agent keeps sessions until `agent sessions prune`",
	"companyAnnouncements":         "no announcements",
	"forceLoginMethod":             "no Claude.ai login",
	"forceLoginOrgUUID":            "no Claude.ai login",
	"otelHeadersHelper":            "telemetry is configured in [telemetry]",
	"outputStyle":                  "no output styles",
	"spinnerTipsEnabled":           "no spinner tips",
	"alwaysThinkingEnabled":        "thinking is set by the profile's reasoning settings",
	"disableAllHooks":              "use the config file's hooks settings",
	"sandbox":                      "the sandbox is configured in [sandbox]",
	"theme":                        "the interface follows the terminal",
	"attribution":                  "use includeCoAuthoredBy",
	"respectGitignore":             "the file tools always respect .gitignore",
	"autoUpdates":                  "agent does not update itself",
	"feedbackSurveyState":          "no surveys",
	"hasCompletedOnboarding":       "no onboarding",
	"disableBypassPermissionsMode": "--yolo is the person's own choice on the command line",
	"extraKnownMarketplaces":       "add a marketplace with agent plugin marketplace add",
}

// Read reads the settings file at path; a missing file is the zero File
// with no error. An error names the file: one that cannot be read, or is
// not the JSON object Claude Code writes.
func Read(path string, project bool) (File, error) {
	f := File{Path: path, Project: project}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return File{Path: path, Project: project}, fmt.Errorf("%s: %w", path, err)
	}
	f.Path, f.Project = path, project
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(data, &keys)
	for k := range keys {
		switch {
		case handled[k]:
		case notHonoured[k] != "":
			f.Unsupported = append(f.Unsupported, fmt.Sprintf("%s: not honoured (%s)", k, notHonoured[k]))
		default:
			f.Unsupported = append(f.Unsupported, k+": not a setting agent knows")
		}
	}
	if f.Permissions.DefaultMode != "" {
		f.Unsupported = append(f.Unsupported, "permissions.defaultMode: not honoured (use --permission-mode)")
	}
	if len(f.Permissions.AdditionalDirectories) > 0 {
		f.Unsupported = append(f.Unsupported, "permissions.additionalDirectories: not honoured (list writable roots in [sandbox] writable_roots)")
	}
	if f.StatusLine != nil && f.StatusLine.Type != "" && f.StatusLine.Type != "command" {
		f.Unsupported = append(f.Unsupported, fmt.Sprintf("statusLine: type %q not honoured (agent runs command status lines)", f.StatusLine.Type))
		f.StatusLine = nil
	}
	sort.Strings(f.Unsupported)
	return f, nil
}

// source is a settings file and whether it is a repository's.
type source struct {
	Path    string
	Project bool
}

// paths are the settings files Claude Code reads for work in dir, lowest
// precedence first: the user's (home "" has none), the repository's
// shared file, its local file.
func paths(home, dir string) []source {
	var out []source
	if home != "" {
		out = append(out, source{filepath.Join(home, ".claude", "settings.json"), false})
	}
	return append(out, source{filepath.Join(dir, ".claude", "settings.json"), true},
		source{filepath.Join(dir, ".claude", "settings.local.json"), true})
}

// Load reads the files of paths(home, dir), lowest precedence first; a
// file that cannot be read is left out and its problem returned among the
// warnings, as is each key a file holds that agent does not honour.
func Load(home, dir string) (files []File, warnings []string) {
	for _, p := range paths(home, dir) {
		f, err := Read(p.Path, p.Project)
		if err != nil {
			warnings = append(warnings, "settings: "+err.Error())
			continue
		}
		for _, u := range f.Unsupported {
			warnings = append(warnings, fmt.Sprintf("settings %s: %s", p.Path, u))
		}
		files = append(files, f)
	}
	return files, warnings
}
