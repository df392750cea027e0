package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// execute runs the root command on args with a recording run function and
// returns the options it ran with (nil when no prompt ran) and the output.
func execute(t *testing.T, args ...string) (*Options, string, error) {
	t.Helper()
	var out bytes.Buffer
	var got *Options
	c := NewRootCmd(Streams{Out: &out, Err: &out}, envOf(nil), func(_ context.Context, o *Options) error {
		got = o
		return nil
	})
	c.SetArgs(args)
	err := c.Execute()
	return got, out.String(), err
}

func TestCompletionScripts(t *testing.T) {
	tests := []struct{ shell, want string }{
		{"bash", "# bash completion V2 for agent"},
		{"zsh", "#compdef agent"},
		{"fish", "complete -c agent"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			o, out, err := execute(t, "completion", tt.shell)
			if err != nil || o != nil {
				t.Fatalf("completion %s: ran a prompt %+v, error %v", tt.shell, o, err)
			}
			if !strings.Contains(out, tt.want) || !strings.Contains(out, "__complete") {
				t.Errorf("completion %s: script lacks %q or the __complete call:\n%.300s", tt.shell, tt.want, out)
			}
		})
	}
}

func TestCompletionNeverStealsAPrompt(t *testing.T) {
	tests := []struct {
		args   []string
		prompt string
		print  bool
		model  string
	}{
		{[]string{"completion of this function"}, "completion of this function", false, ""},
		{[]string{"completion", "of", "this", "function"}, "completion of this function", false, ""},
		{[]string{"-p", "completion of this function"}, "completion of this function", true, ""},
		{[]string{"-p", "completion", "of", "this", "function"}, "completion of this function", true, ""},
		{[]string{"-p", "completion"}, "completion", true, ""},
		{[]string{"-p", "completion", "bash"}, "completion bash", true, ""},
		{[]string{"completion", "bash", "-p"}, "completion bash", true, ""},
		{[]string{"completion", "bash", "zsh"}, "completion bash zsh", false, ""},
		{[]string{"completion", "--model", "m", "of", "x"}, "completion of x", false, "m"},
		{[]string{"--model=m", "completion", "fish"}, "completion fish", false, "m"},
		{[]string{"-p", "help me"}, "help me", true, ""},
		{[]string{"-p", "help", "me", "fix", "this"}, "help me fix this", true, ""},
		{[]string{"help", "me"}, "help me", false, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, out, err := execute(t, tt.args...)
			if err != nil {
				t.Fatalf("error %v; output:\n%s", err, out)
			}
			if o == nil {
				t.Fatalf("no prompt ran; output:\n%.300s", out)
			}
			if o.Prompt != tt.prompt || o.Print != tt.print || o.Model != tt.model {
				t.Errorf("prompt %q, print %v, model %q; want %q, %v, %q", o.Prompt, o.Print, o.Model, tt.prompt, tt.print, tt.model)
			}
			if o.MaxRetries != -1 {
				t.Errorf("MaxRetries = %d; want -1 (flag not given)", o.MaxRetries)
			}
		})
	}
}

func TestCompletionHelpAndBadFlags(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "--help"}} {
		o, out, err := execute(t, args...)
		if err != nil || o != nil || !strings.Contains(out, "agent completion zsh") {
			t.Errorf("%v: prompt %+v, error %v, output:\n%.300s", args, o, err, out)
		}
	}
	o, _, err := execute(t, "completion", "of", "--no-such-flag")
	if o != nil || exitCode(err) != 2 {
		t.Errorf("unknown flag in a completion prompt: prompt %+v, error %v (exit %d); want a usage error", o, err, exitCode(err))
	}
}

func TestShellCompletionCandidates(t *testing.T) {
	tests := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{""}, []string{"completion", "doctor", "sessions", "undo"}, []string{"no-help-command", "help"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}, nil},
		{[]string{"--output-format", ""}, []string{"text", "json", "stream-json"}, nil},
		{[]string{"--sandbox", ""}, []string{"workspace-write", "read-only", "off"}, nil},
		{[]string{"--permission-mode", ""}, []string{"ask", "auto", "yolo"}, nil},
		{[]string{"--tools", ""}, []string{"pick", "swap", "all"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, out, err := execute(t, append([]string{"__complete"}, tt.args...)...)
			if err != nil || o != nil {
				t.Fatalf("prompt %+v, error %v", o, err)
			}
			got := map[string]bool{}
			for _, line := range strings.Split(out, "\n") {
				name, _, _ := strings.Cut(line, "\t")
				got[name] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("candidates lack %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if got[n] {
					t.Errorf("candidates offer %q:\n%s", n, out)
				}
			}
		})
	}
}
