package shell

import (
	"fmt"
	"testing"
)

// developerEnv is an environment of 86 variables as a developer's shell
// has them: paths, locale, tools' settings, a few tokens.
func developerEnv() []string {
	env := []string{
		"PATH=/home/dev/.cargo/bin:/home/dev/go/bin:/usr/local/bin:/usr/bin:/bin", "HOME=/home/dev", "USER=dev", "SHELL=/bin/zsh",
		"LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8", "TERM=xterm-256color", "EDITOR=nvim", "GOPATH=/home/dev/go",
		"GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345", "NPM_TOKEN=npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"DATABASE_URL=postgres://app:s3cretpass@db.internal:5432/app", "AWS_PROFILE=dev", "OPENAI_API_KEY=sk-proj-abcdefghijklmnop",
		"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234", "KUBECONFIG=/home/dev/.kube/config", "DOCKER_HOST=unix:///run/user/1000/docker.sock",
	}
	for i := len(env); i < 86; i++ {
		env = append(env, fmt.Sprintf("TOOL_SETTING_%d=/home/dev/.config/tool%d/settings-value-%d", i, i, i))
	}
	return env
}

// BenchmarkChildEnv is the filter of a developer's 86 variables for one
// command's environment, as bash, a hook, an MCP server or a language
// server start it: the process's first (every variable's name and value
// looked at), and each after it (the decisions remembered).
func BenchmarkChildEnv(b *testing.B) {
	env := developerEnv()
	f := EnvFilter{Strip: []string{"OPENAI_API_KEY"}, Keep: []string{"GITHUB_TOKEN"}}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			envDecisions.Clear()
			childEnv(env, f, nil)
		}
	})
	b.Run("again", func(b *testing.B) {
		childEnv(env, f, nil)
		for b.Loop() {
			childEnv(env, f, nil)
		}
	})
}
