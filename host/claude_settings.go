package host

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-dev/agent/claudesettings"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/rules"
)

// claudeSettings is what a session takes from Claude Code's settings
// files (package claudesettings): permission rules in agent's terms, the
// variables for commands and hooks, the status line, the commit trailer.
// A repository's allow rules and env apply only once the person trusts
// the repository (--trust-project); its deny and ask rules always do.
type claudeSettings struct {
	files []claudesettings.File
	// allow and deny are the rules agent's own [permissions] and
	// front-end rules take (commands, tools, web_fetch's domains);
	// allowBash is Claude Code's "Bash" allow rule (every command, as
	// --allow-bash).
	allow, deny               Rules
	allowDomains, denyDomains []string
	allowBash                 bool
	// asks are the rules whose calls a person must answer.
	asks askRules
	// hidden are the paths deny rules name literally (Read(./.env)):
	// commands cannot read them either.
	hidden []string
	// env are the variables (KEY=VALUE) for commands, hooks and the
	// status line.
	env []string
	// statusLine is the command of the interface's status line (nil:
	// none); coAuthor is includeCoAuthoredBy (nil: not set).
	statusLine *claudesettings.StatusLine
	// statusLineProject says the status line is a repository's (trusted):
	// it runs in the sandbox, as the repository's hooks do.
	statusLineProject bool
	coAuthor          *bool
	warnings          []string
}

// askRules are Claude Code's ask rules, and the path-scoped deny rules of
// its file tools, which agent's other rules cannot say.
type askRules struct {
	dir      string     // what a file tool's relative path starts from
	commands *rules.Set // ask rules as deny rules: a match asks
	allBash  bool
	tools    []string
	// denyRead, denyEdit, askRead, askEdit are absolute path globs.
	denyRead, denyEdit, askRead, askEdit []string
}

// loadClaudeSettings reads the Claude Code settings for work in dir;
// trusted says the repository's own files may widen what is allowed;
// filter is the one the agent's environment passes to reach commands: a
// settings file's variable passes it too (its Strip, the provider keys,
// are never set from a settings file).
func loadClaudeSettings(home, dir string, trusted func(claudesettings.File) bool, filter shell.EnvFilter) claudeSettings {
	c := claudeSettings{asks: askRules{dir: dir}}
	c.files, c.warnings = claudesettings.Load(home, dir)
	var askCmds []string
	for _, f := range c.files {
		base := filepath.Dir(filepath.Dir(f.Path)) // the directory holding .claude
		widen := !f.Project || trusted(f)
		if !widen && widens(f) {
			c.warnings = append(c.warnings, fmt.Sprintf("settings %s: its allow rules, env and status line are not applied until you trust the file (the interface asks; headless: --trust-project)", f.Path))
		}
		each := func(list []string, deny bool, take func(claudesettings.Rule)) {
			for _, text := range list {
				r, note, ok := claudesettings.Translate(text, dir, base, home, deny)
				if note != "" || !ok {
					c.warnings = append(c.warnings, fmt.Sprintf("settings %s: permission rule %q: %s", f.Path, text, cmp.Or(note, "not applied")))
				}
				if ok {
					take(r)
				}
			}
		}
		each(f.Permissions.Deny, true, func(r claudesettings.Rule) {
			switch r.Kind {
			case claudesettings.KindCommand:
				if !validCommandRule(r.Value, f.Path, &c.warnings) {
					return
				}
				c.deny.DenyCommands = append(c.deny.DenyCommands, r.Value)
			case claudesettings.KindAllBash:
				c.deny.DenyTools = append(c.deny.DenyTools, "bash")
			case claudesettings.KindTool:
				c.deny.DenyTools = append(c.deny.DenyTools, r.Value)
			case claudesettings.KindDomain:
				c.denyDomains = append(c.denyDomains, r.Value)
			case claudesettings.KindReadPath:
				c.asks.denyRead = append(c.asks.denyRead, r.Value)
				if r.Literal != "" {
					c.hidden = append(c.hidden, r.Literal)
				}
			case claudesettings.KindEditPath:
				c.asks.denyEdit = append(c.asks.denyEdit, r.Value)
			}
		})
		each(f.Permissions.Ask, true, func(r claudesettings.Rule) {
			switch r.Kind {
			case claudesettings.KindCommand:
				askCmds = append(askCmds, r.Value)
			case claudesettings.KindAllBash:
				c.asks.allBash = true
			case claudesettings.KindTool:
				c.asks.tools = append(c.asks.tools, r.Value)
			case claudesettings.KindDomain:
				c.warnings = append(c.warnings, fmt.Sprintf("settings %s: ask rule %q: web_fetch asks of domains no rule allows already", f.Path, r.Value))
			case claudesettings.KindReadPath:
				c.asks.askRead = append(c.asks.askRead, r.Value)
			case claudesettings.KindEditPath:
				c.asks.askEdit = append(c.asks.askEdit, r.Value)
			}
		})
		if widen {
			each(f.Permissions.Allow, false, func(r claudesettings.Rule) {
				switch r.Kind {
				case claudesettings.KindCommand:
					if !validCommandRule(r.Value, f.Path, &c.warnings) {
						return
					}
					c.allow.AllowCommands = append(c.allow.AllowCommands, r.Value)
				case claudesettings.KindAllBash:
					c.allowBash = true
				case claudesettings.KindTool:
					c.allow.AllowTools = append(c.allow.AllowTools, r.Value)
				case claudesettings.KindDomain:
					c.allowDomains = append(c.allowDomains, r.Value)
				}
			})
			c.env = mergeEnv(c.env, f, filter, &c.warnings)
		}
		if f.StatusLine != nil && f.StatusLine.Command != "" && widen {
			c.statusLine, c.statusLineProject = f.StatusLine, f.Project
		}
		if f.IncludeCoAuthoredBy != nil {
			c.coAuthor = f.IncludeCoAuthoredBy
		}
	}
	if len(askCmds) > 0 {
		set, err := rules.Compile(nil, askCmds)
		if err != nil {
			c.warnings = append(c.warnings, "settings: ask rules: "+err.Error())
		} else {
			c.asks.commands = set
		}
	}
	return c
}

// validCommandRule reports whether rule compiles as agent's command rule,
// warning of one that does not.
func validCommandRule(rule, path string, warnings *[]string) bool {
	if _, err := rules.Compile([]string{rule}, nil); err != nil {
		*warnings = append(*warnings, fmt.Sprintf("settings %s: permission rule %q not applied: %v", path, rule, err))
		return false
	}
	return true
}

// mergeEnv adds f's env to env (a later file's value wins), leaving out
// the provider keys, which a settings file never sets, and what filter
// keeps from commands (a name or value that looks like a secret's).
func mergeEnv(env []string, f claudesettings.File, filter shell.EnvFilter, warnings *[]string) []string {
	names := make([]string, 0, len(f.Env))
	for k := range f.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if slices.Contains(filter.Strip, k) || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "AGENT_") {
			*warnings = append(*warnings, fmt.Sprintf("settings %s: env %s not applied: a settings file does not set the provider's or agent's variables", f.Path, k))
			continue
		}
		if why := filter.Why(k, f.Env[k]); why != "" {
			*warnings = append(*warnings, fmt.Sprintf("settings %s: env %s not applied: %s, and commands get no secrets (env_passthrough in [sandbox] passes it)", f.Path, k, why))
			continue
		}
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		env = append(env, k+"="+f.Env[k])
	}
	return env
}

// judge is the ruling of the ask rules and path-scoped deny rules on a
// call of def with arguments (ok false: they say nothing). A person must
// answer what an ask rule names, in every mode but yolo.
func (q askRules) judge(def tools.Definition, arguments, mode string) (ruling, bool) {
	if path := callPath(arguments); path != "" {
		path = absolutePath(q.dir, path)
		edit := IsEdit(def)
		denied, asked := q.denyRead, q.askRead
		if edit {
			denied, asked = q.denyEdit, q.askEdit
		}
		if pat, ok := matchPath(denied, path); ok && (edit || def.ReadOnly) {
			return ruling{verdict: deny, why: fmt.Sprintf("denied by rule %q", pat),
				reason: fmt.Sprintf("%s was not run: a deny rule of the user's Claude Code settings (%s) covers %s. Do not try to get around it; ask the user.", def.Name, pat, path)}, true
		}
		if pat, ok := matchPath(asked, path); ok && (edit || def.ReadOnly) && mode != ModeYolo {
			return ruling{verdict: askPerson, reason: fmt.Sprintf("an ask rule of the Claude Code settings (%s) covers %s", pat, path), mustAsk: true}, true
		}
	}
	if mode == ModeYolo {
		return ruling{}, false
	}
	if pat, ok := matchTool(q.tools, def.Name); ok {
		return ruling{verdict: askPerson, reason: fmt.Sprintf("the ask rule %q of the Claude Code settings", pat), mustAsk: true}, true
	}
	if def.Effects.Has(tools.RunsCommands) && (q.allBash || q.commands != nil) {
		if q.allBash {
			return ruling{verdict: askPerson, reason: "the ask rule \"Bash\" of the Claude Code settings", mustAsk: true}, true
		}
		var a struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal([]byte(arguments), &a)
		if res := q.commands.Check(a.Command); res.Verdict == rules.Deny {
			return ruling{verdict: askPerson, reason: strings.Replace(res.Reason, "denied", "asked", 1) + " (an ask rule of the Claude Code settings)", mustAsk: true}, true
		}
	}
	return ruling{}, false
}

// callPath is the absolute path a file tool's call names ("path"), "" for
// none.
func callPath(arguments string) string {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(arguments), &a) != nil || a.Path == "" {
		return ""
	}
	return a.Path
}

// matchPath returns the first glob of pats that path matches, or one of
// its parent directories does.
func matchPath(pats []string, path string) (string, bool) {
	for _, p := range pats {
		for d := filepath.ToSlash(path); ; d = filepath.ToSlash(filepath.Dir(d)) {
			if ok, _ := doublestar.Match(p, d); ok {
				return p, true
			}
			if filepath.Dir(d) == d || d == "." || d == "" {
				break
			}
		}
	}
	return "", false
}

// absolutePath resolves a file tool's path against dir.
func absolutePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// coAuthorNote is the system prompt's line for includeCoAuthoredBy: true.
const coAuthorNote = "When you write a git commit message, end it with a blank line and the trailer \"Co-Authored-By: agent <noreply@agent.invalid>\".\n"
