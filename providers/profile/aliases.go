package profile

import (
	"maps"
	"strings"
)

// anthropicAliases are Claude Code's model aliases (code.claude.com,
// "Model configuration") as the anthropic provider serves them: the
// current model of each family. model_aliases in the config file, and
// Claude Code's ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU}_MODEL, change them.
var anthropicAliases = map[string]string{
	"sonnet": "claude-sonnet-4-5",
	"opus":   "claude-opus-4-5",
	"haiku":  "claude-haiku-4-5",
}

// claudeAliases are the aliases Claude Code's files name.
var claudeAliases = []string{"sonnet", "opus", "haiku", "opusplan"}

// aliases resolves the model aliases of a run: the provider's defaults
// (anthropic: anthropicAliases; the OpenAI protocols serve no Claude
// model, so none), the file's top-level model_aliases, the profile's,
// then, for anthropic, Claude Code's ANTHROPIC_DEFAULT_*_MODEL variables.
// Keys are lower case.
func (s *Settings) aliases(f File, p Profile, getenv func(string) string) {
	s.ModelAliases = map[string]string{}
	if s.Provider == Anthropic {
		maps.Copy(s.ModelAliases, anthropicAliases)
	}
	for _, m := range []map[string]string{f.ModelAliases, p.ModelAliases} {
		for k, v := range m {
			s.ModelAliases[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	if s.Provider == Anthropic {
		for _, a := range []string{"sonnet", "opus", "haiku"} {
			if v := getenv("ANTHROPIC_DEFAULT_" + strings.ToUpper(a) + "_MODEL"); v != "" {
				s.ModelAliases[a] = v
			}
		}
	}
}

// ResolveModel is the model a file of Claude Code's names (an agent
// definition's, a command's or a skill's model field) for this run; when
// the session's model answers instead of the one named, why says why
// ("a Claude model, which this provider does not serve (openai)").
// use is "" for the session's model: for "", "inherit" and "default"; for
// an alias this provider has no model for (sonnet with an OpenAI
// protocol); and for a Claude model with a provider other than anthropic
// (a repository's files written for Claude Code still run). An alias is
// its model_aliases entry; a Claude model's display name becomes its id
// ("Claude Sonnet 4.5" is claude-sonnet-4-5); any other name is used as
// written.
func (s Settings) ResolveModel(name string) (use, why string) {
	name = strings.TrimSpace(name)
	lower := strings.ToLower(name)
	switch {
	case lower == "" || lower == "inherit" || lower == "default":
		return "", ""
	case s.ModelAliases[lower] != "":
		return s.ModelAliases[lower], ""
	}
	for _, a := range claudeAliases {
		if lower == a {
			return "", "an alias of Claude Code's with no model on provider " + s.Provider + " (map it with model_aliases in the config)"
		}
	}
	if strings.HasPrefix(lower, "claude") && strings.ContainsAny(lower, " .") {
		lower = strings.Join(strings.FieldsFunc(lower, func(r rune) bool { return r == ' ' || r == '.' || r == '-' }), "-")
		name = lower
		if v := s.ModelAliases[lower]; v != "" {
			return v, ""
		}
	}
	if strings.HasPrefix(lower, "claude") && s.Provider != Anthropic {
		return "", "a Claude model, which this provider does not serve (" + s.Provider + ")"
	}
	return name, ""
}
