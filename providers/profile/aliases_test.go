package profile

import "testing"

// Claude Code's aliases map per provider; a profile's model_aliases win
// over the file's, Claude Code's variables over both (anthropic only); a
// display name becomes an id; a Claude model is not asked of another
// provider.
func TestResolveModel(t *testing.T) {
	env := map[string]string{"ANTHROPIC_DEFAULT_HAIKU_MODEL": "claude-haiku-env"}
	getenv := func(k string) string { return env[k] }
	f := File{ModelAliases: map[string]string{"Opus": "claude-opus-file", "fast": "file-fast"},
		Profiles: map[string]Profile{
			"claude": {Provider: Anthropic, Model: "claude-sonnet-4-5", ModelAliases: map[string]string{"fast": "claude-haiku-4-5"}},
			"gpt":    {Provider: OpenAIResponses, Model: "gpt-5", ModelAliases: map[string]string{"sonnet": "gpt-5-mini"}},
			"local":  {Model: "qwen", BaseURL: "http://localhost:1/v1"},
		}}
	resolve := func(profile string) Settings {
		s, err := Resolve(f, "config.toml", Overrides{Profile: profile, MaxRetries: -1}, getenv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		profile, name, use string
		noted              bool
	}{
		{"claude", "sonnet", "claude-sonnet-4-5", false},
		{"claude", "Opus", "claude-opus-file", false},
		{"claude", "haiku", "claude-haiku-env", false},
		{"claude", "fast", "claude-haiku-4-5", false},
		{"claude", "inherit", "", false},
		{"claude", "", "", false},
		{"claude", "Claude Sonnet 4.5", "claude-sonnet-4-5", false},
		{"claude", "claude-opus-4-1", "claude-opus-4-1", false},
		{"claude", "opusplan", "", true},
		{"gpt", "sonnet", "gpt-5-mini", false},
		{"gpt", "opus", "claude-opus-file", false},
		{"gpt", "haiku", "", true},
		{"gpt", "claude-sonnet-4-5", "", true},
		{"local", "qwen-coder", "qwen-coder", false},
	}
	for _, c := range cases {
		use, note := resolve(c.profile).ResolveModel(c.name)
		if use != c.use || (note != "") != c.noted {
			t.Errorf("%s: ResolveModel(%q) = %q, %q; want %q (a note: %v)", c.profile, c.name, use, note, c.use, c.noted)
		}
	}
}
