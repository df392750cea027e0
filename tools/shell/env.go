package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// alwaysStripped are the variables never passed to a command, whatever the
// configuration says: the agent's API key, and the agent's own directory
// variables (bash sets PWD from the directory it starts in).
var alwaysStripped = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "PWD", "OLDPWD"}

// DefaultEnvRemove are the patterns of variable names that commands do not
// get unless Config.EnvKeep names them: names that look like secrets, the
// cloud providers' credentials and the model providers' variables. A
// pattern is a glob (path.Match) compared with the name in upper case.
var DefaultEnvRemove = []string{
	"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*_PWD", "*CREDENTIAL*",
	"*_PAT", "*_PAT_*", "PAT", "*JWT*", "*_AUTH", "*AUTH_*", "*COOKIE*", "*WEBHOOK*", "*DSN*",
	"*DATABASE_URL*", "*_DB_URL", "*CONNECTION_STRING*", "REDIS_URL", "MONGO*_URI", "AMQP_URL",
	"AWS_*", "AZURE_*", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_*", "VAULT_*", "OPENAI_*", "ANTHROPIC_*",
	"OPENROUTER_*", "GEMINI_*", "MISTRAL_*", "GROQ_*", "DEEPSEEK_*", "XAI_*",
	"OTEL_EXPORTER_OTLP*HEADERS", // the telemetry backend's credentials (authorization=Bearer ...)
}

// EnvFilter says which variables of the agent's environment a command does
// not get.
type EnvFilter struct {
	// Strip are names always removed (the agent's API key variable), even
	// when Keep matches them; alwaysStripped are added.
	Strip []string
	// Keep are patterns of names kept despite DefaultEnvRemove.
	Keep []string
	// Remove are further patterns of names removed; Keep does not override
	// them.
	Remove []string
}

// Removes reports whether the filter removes the variable name whatever
// its value. Names and patterns compare in upper case; a malformed pattern
// matches nothing.
func (f EnvFilter) Removes(name string) bool { return f.Why(name, "") != "" }

// Why says why the filter removes the variable name=value ("" when it
// keeps it): the provider's key, a configured pattern, a name that looks
// like a secret's, or a value that carries credentials (see SecretValue).
// Keep (env_passthrough) overrides the last two.
func (f EnvFilter) Why(name, value string) string {
	up := strings.ToUpper(name)
	for _, list := range [][]string{alwaysStripped, f.Strip} {
		if slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, name) }) {
			return "the provider's key"
		}
	}
	if p, ok := matchWhich(f.Remove, up); ok {
		return fmt.Sprintf("env_remove %q", p)
	}
	if matchAny(f.Keep, up) {
		return ""
	}
	if p, ok := matchWhich(DefaultEnvRemove, up); ok {
		return fmt.Sprintf("name looks like a secret's (%s)", p)
	}
	if why := SecretValue(value); why != "" {
		return "value " + why
	}
	return ""
}

// Environ returns the variables of env (KEY=VALUE) the filter keeps, in
// env's order. What it decided of each variable is remembered for the
// process (per filter and per KEY=VALUE, so a changed value is decided
// again): bash, the hooks, the MCP servers, the language servers and the
// browser an MCP server opens all start from the same environment, which
// is filtered once, not once for each.
func (f EnvFilter) Environ(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != "" && f.memoWhy(kv) == "" {
			out = append(out, kv)
		}
	}
	return out
}

// envDecisions are Why's answers for the variables a process filtered:
// filter key -> KEY=VALUE -> why ("" kept).
var envDecisions sync.Map

// memoWhy is Why for kv, remembered (see Environ).
func (f EnvFilter) memoWhy(kv string) string {
	key := strings.Join(f.Strip, "\x00") + "\x01" + strings.Join(f.Keep, "\x00") + "\x01" + strings.Join(f.Remove, "\x00")
	m, _ := envDecisions.LoadOrStore(key, &sync.Map{})
	decided := m.(*sync.Map)
	if why, ok := decided.Load(kv); ok {
		return why.(string)
	}
	name, value, _ := strings.Cut(kv, "=")
	why := f.Why(name, value)
	decided.Store(kv, why)
	return why
}

// Removal is a variable the filter removes and why.
type Removal struct {
	Name, Why string
}

// Removed lists the variables of env (KEY=VALUE) that the filter removes,
// by name and in env's order, without PWD and OLDPWD (which are not
// secrets): what `agent doctor` shows.
func (f EnvFilter) Removed(env []string) []Removal {
	var out []Removal
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if name == "" || name == "PWD" || name == "OLDPWD" || slices.ContainsFunc(out, func(r Removal) bool { return r.Name == name }) {
			continue
		}
		if why := f.Why(name, value); why != "" {
			out = append(out, Removal{name, why})
		}
	}
	return out
}

// LooksSecret reports whether a variable or header called name with value
// looks like a secret: by its name (DefaultEnvRemove) or its value.
func LooksSecret(name, value string) bool {
	return matchAny(DefaultEnvRemove, strings.ToUpper(name)) || SecretValue(value) != ""
}

// matchWhich returns the first of patterns that matches up.
func matchWhich(patterns []string, up string) (string, bool) {
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), up); ok {
			return p, true
		}
	}
	return "", false
}

func matchAny(patterns []string, up string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), up); ok {
			return true
		}
	}
	return false
}

// nonInteractive are set in every command's environment so that nothing
// waits for a pager, a terminal or a password prompt.
var nonInteractive = []string{
	"TERM=dumb",
	"NO_COLOR=1",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_TERMINAL_PROMPT=0",
}

// childEnv returns base without the variables f removes and those set by
// nonInteractive, then appends nonInteractive and extra (KEY=VALUE, set by
// the tool whatever the filter says: the sandbox's TMPDIR).
func childEnv(base []string, f EnvFilter, extra []string) []string {
	set := func(list []string, name string) bool {
		return slices.ContainsFunc(list, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return strings.EqualFold(name, k)
		})
	}
	env := make([]string, 0, len(base)+len(nonInteractive)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || f.memoWhy(kv) != "" || set(nonInteractive, name) || set(extra, name) {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, nonInteractive...), extra...)
}
