package shell

import (
	"context"
	"strings"
	"testing"
)

func TestEnvFilterRemovesWhatLooksLikeASecret(t *testing.T) {
	f := EnvFilter{Strip: []string{"MY_PROVIDER_KEY"}, Keep: []string{"GITHUB_TOKEN", "OPENAI_*"}, Remove: []string{"CORP_*"}}
	cases := []struct {
		name    string
		removed bool
	}{
		{"ANTHROPIC_API_KEY", true},
		{"GITHUB_TOKEN", false}, // kept by name
		{"GH_TOKEN", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_REGION", true},
		{"aws_profile", true}, // names compare in upper case
		{"DB_PASSWORD", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"NPM_CONFIG__AUTHTOKEN", true},
		{"OPENAI_BASE_URL", false}, // kept by pattern
		{"OPENAI_API_KEY", true},   // always, whatever Keep says
		{"MY_PROVIDER_KEY", true},  // the profile's key variable
		{"CORP_PROXY_HOST", true},  // env_remove
		{"PATH", false},
		{"HOME", false},
		{"GOPATH", false},
		{"PWD", true},
		{"OTEL_EXPORTER_OTLP_HEADERS", true},        // the telemetry backend's credentials
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", true}, // a signal's
		{"OTEL_EXPORTER_OTLP_ENDPOINT", false},
	}
	for _, c := range cases {
		if got := f.Removes(c.name); got != c.removed {
			t.Errorf("Removes(%q) = %v, want %v", c.name, got, c.removed)
		}
	}
	got := f.Removed([]string{"PATH=/bin", "PWD=/x", "GH_TOKEN=1", "ANTHROPIC_API_KEY=2", "GH_TOKEN=3"})
	if len(got) != 2 || got[0].Name != "GH_TOKEN" || got[1].Name != "ANTHROPIC_API_KEY" {
		t.Errorf("Removed = %q", got)
	}
}

// The command sees none of the secrets of the agent's environment, through
// the real tool.
func TestCommandsDoNotSeeSecrets(t *testing.T) {
	base := []string{"PATH=/usr/bin:/bin", "ANTHROPIC_API_KEY=sk-ant-1", "GITHUB_TOKEN=ghp-2", "AWS_SECRET_ACCESS_KEY=aws-3",
		"MY_PASSWORD=pw-4", "VISIBLE=yes", "KEEPME_TOKEN=kept-5", "TMPDIR=/host/tmp"}
	tool := newTool(t, Config{Env: base, EnvKeep: []string{"KEEPME_TOKEN"}, ExtraEnv: []string{"TMPDIR=/session/tmp"}})
	res := run(t, context.Background(), tool, map[string]any{"command": "env"})
	for _, secret := range []string{"sk-ant-1", "ghp-2", "aws-3", "pw-4", "/host/tmp"} {
		if strings.Contains(res.Content, secret) {
			t.Errorf("the command saw %q:\n%s", secret, res.Content)
		}
	}
	for _, want := range []string{"VISIBLE=yes", "KEEPME_TOKEN=kept-5", "TMPDIR=/session/tmp"} {
		if !strings.Contains(res.Content, want+"\n") {
			t.Errorf("the command should see %s:\n%s", want, res.Content)
		}
	}
}

// Names and values that carry credentials are removed, whatever name hides
// them; env_passthrough keeps one; ordinary values stay.
func TestEnvFilterWidenedPatternsAndValues(t *testing.T) {
	f := EnvFilter{Keep: []string{"CI_DEPLOY_PAT"}}
	removed := map[string]string{
		"DATABASE_URL":     "postgres://app@db/app",
		"HTTPS_PROXY":      "http://me:hunter2@proxy.corp:3128",
		"GITLAB_PAT":       "abc",
		"CI_JOB_JWT":       "abc",
		"DB_PASSWORD":      "abc",
		"SENTRY_DSN":       "https://x@sentry.io/1",
		"NPM_CONFIG__AUTH": "abc",
		"SSH_AUTH_SOCK":    "/tmp/ssh-agent.sock",
		"MY_HELPER":        "ghp_0123456789abcdefghij0123456789abcd",
		"UPSTREAM":         "https://user:pw@git.example.com/repo.git",
		"NOTES":            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"X":                "sk-proj-abcdefghijklmnopqrstuvwx",
		"SLACK":            "xoxb-1234567890-abcdefghij",
		"AKEYLESS":         "AKIAIOSFODNN7EXAMPLE",
		"GL":               "glpat-abcdefghijklmnopqrst",
		"SESSIONISH":       "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	for name, value := range removed {
		if why := f.Why(name, value); why == "" {
			t.Errorf("%s=%s is passed to commands", name, value)
		}
	}
	kept := map[string]string{
		"PATH": "/usr/bin:/bin", "HOME": "/home/u", "HTTPS_PROXY": "http://proxy.corp:3128", "GOFLAGS": "-mod=mod",
		"CI_DEPLOY_PAT": "ghp_0123456789abcdefghij0123456789abcd", "EDITOR": "vim", "LANG": "C.UTF-8",
		"GIT_REMOTE": "git@github.com:o/r.git", "XAUTHORITY": "/home/u/.Xauthority", "TASK": "sk-tests",
	}
	for name, value := range kept {
		if why := f.Why(name, value); why != "" {
			t.Errorf("%s=%s is removed (%s)", name, value, why)
		}
	}
}

func TestMaskSecretsHidesValuesAndKeepsTheRest(t *testing.T) {
	in := "token ghp_abcdefghijklmnopqrstuvwxyz0123, db postgres://bob:hunter22@db/app\n" +
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter"
	got := MaskSecrets(in)
	for _, secret := range []string{"ghp_abc", "hunter22", "b3BlbnNzaC1rZXk"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q still in %q", secret, got)
		}
	}
	for _, kept := range []string{"token [secret masked]", "postgres://bob:[secret masked]@db/app", "\nafter"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q not in %q", kept, got)
		}
	}
	if plain := "nothing secret here, see https://example.com/a:b"; MaskSecrets(plain) != plain {
		t.Errorf("MaskSecrets changed %q to %q", plain, MaskSecrets(plain))
	}
}
