package profile

import (
	"cmp"
	"fmt"
	"strings"
)

// fallbacks resolves the models a turn falls back to (Overrides'
// FallbackModels, else the profile's fallback_models), each to the
// settings its requests go out with. An entry is a model of the same
// server ("claude-haiku-4-5"), a profile's name ("local": its server and
// model) or a profile and a model ("local:qwen3"). A fallback's own
// fallbacks are never followed. Its errors say which entry is wrong.
func (s *Settings) fallbacks(f File, p Profile, o Overrides, path string, getenv func(string) string) error {
	entries := p.FallbackModels
	if o.FallbackModels != nil {
		entries = o.FallbackModels
	}
	s.Fallbacks = nil
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			return fmt.Errorf("config %s: profile %q: an empty entry in fallback_models", path, s.Profile)
		}
		name, model, _ := strings.Cut(e, ":")
		if _, ok := f.Profiles[name]; !ok {
			use, why := s.ResolveModel(e) // Claude Code's aliases (the Claude Agent SDK's fallbackModel: "sonnet")
			if use == "" {
				return fmt.Errorf("fallback %q: %s", e, cmp.Or(why, "not a model"))
			}
			fb := *s
			fb.Model, fb.Fallbacks = use, nil
			if fb.Price != nil && fb.Model != s.Model {
				fb.Price = nil // the profile's price is its own model's
			}
			s.Fallbacks = append(s.Fallbacks, fb)
			continue
		}
		// The profile's settings as if it were chosen, but for the
		// variables that choose the run's own model and server (they are
		// not the fallback's); an empty (not nil) FallbackModels keeps its
		// own fallback_models from being followed.
		fb, err := Resolve(f, path, Overrides{Profile: name, Model: model, MaxRetries: o.MaxRetries, IdleTimeout: o.IdleTimeout, FallbackModels: []string{}},
			func(k string) string {
				switch k {
				case "AGENT_MODEL", "AGENT_PROFILE", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL":
					return ""
				}
				return getenv(k)
			})
		if err != nil {
			return fmt.Errorf("fallback %q: %w", e, err)
		}
		if err := fb.Ready(path); err != nil {
			return fmt.Errorf("fallback %q: %w", e, err)
		}
		s.Fallbacks = append(s.Fallbacks, fb)
	}
	return nil
}

// FallbackModels are the models of Fallbacks, in order.
func (s Settings) FallbackModels() []string {
	out := make([]string, len(s.Fallbacks))
	for i, fb := range s.Fallbacks {
		out[i] = fb.Model
	}
	return out
}
