package shell

import (
	"path"
	"slices"
	"strings"
)

// alwaysStripped are the variables never passed to a command, whatever the
// configuration says: the agent's API key, and the agent's own directory
// variables (bash sets PWD from the directory it starts in).
var alwaysStripped = []string{"OPENAI_API_KEY", "PWD", "OLDPWD"}

// DefaultEnvRemove are the patterns of variable names that commands do not
// get unless Config.EnvKeep names them: names that look like secrets, the
// cloud providers' credentials and the model providers' variables. A
// pattern is a glob (path.Match) compared with the name in upper case.
var DefaultEnvRemove = []string{
	"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*",
	"AWS_*", "AZURE_*", "GOOGLE_APPLICATION_CREDENTIALS", "OPENAI_*", "ANTHROPIC_*",
	"OPENROUTER_*", "GEMINI_*", "MISTRAL_*", "GROQ_*", "DEEPSEEK_*", "XAI_*",
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

// Removes reports whether the filter removes the variable name. Names and
// patterns compare in upper case; a malformed pattern matches nothing.
func (f EnvFilter) Removes(name string) bool {
	up := strings.ToUpper(name)
	for _, list := range [][]string{alwaysStripped, f.Strip} {
		if slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, name) }) {
			return true
		}
	}
	if matchAny(f.Remove, up) {
		return true
	}
	return matchAny(DefaultEnvRemove, up) && !matchAny(f.Keep, up)
}

// Removed lists the names of the variables of env (KEY=VALUE) that the
// filter removes, in env's order, without PWD and OLDPWD (which are not
// secrets): what `agent doctor` shows.
func (f EnvFilter) Removed(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "" && name != "PWD" && name != "OLDPWD" && f.Removes(name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
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
		if name == "" || f.Removes(name) || set(nonInteractive, name) || set(extra, name) {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, nonInteractive...), extra...)
}
