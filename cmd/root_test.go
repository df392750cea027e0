package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/internal/version"
)

func parse(t *testing.T, st Streams, args ...string) (*Options, error) {
	t.Helper()
	var got *Options
	c := NewRootCmd(st, envOf(nil), func(_ context.Context, o *Options) error { got = o; return nil })
	c.SetArgs(args)
	err := c.Execute()
	return got, err
}

func TestFlagParsing(t *testing.T) {
	o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}},
		"-p", "--model", "m", "--base-url", "http://localhost:1/v1", "--max-steps", "5", "-C", "/tmp",
		"--output-format", "json", "--tools", "all", "--no-stdin", "--stdin-timeout", "1s", "--allow-bash", "where", "is", "main")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Print || o.Model != "m" || o.BaseURL != "http://localhost:1/v1" || o.MaxSteps != 5 || o.Dir != "/tmp" ||
		o.OutputFormat != "json" || o.Tools != "all" || !o.NoStdin || o.StdinTimeout != time.Second || !o.AllowBash ||
		o.Prompt != "where is main" || o.MaxRetries != -1 {
		t.Errorf("options: %+v", o)
	}
}

func TestBadFlagIsAUsageError(t *testing.T) {
	_, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "--no-such-flag")
	if exitCode(err) != ExitUsage {
		t.Errorf("exit code %d for %v, want %d", exitCode(err), err, ExitUsage)
	}
}

func TestInterfaceOnlyInATerminal(t *testing.T) {
	tests := []struct {
		name  string
		print bool
		st    Streams
		want  bool
	}{
		{"terminal", false, Streams{OutIsTerminal: true}, true},
		{"terminal with -p", true, Streams{OutIsTerminal: true}, false},
		{"stdout piped", false, Streams{}, false},
		{"stdin piped", false, Streams{OutIsTerminal: true, InPiped: true}, false},
	}
	for _, tt := range tests {
		if got := interactive(&Options{Print: tt.print}, tt.st); got != tt.want {
			t.Errorf("%s: interactive = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	// The same line a stamped build prints from internal/version's init,
	// also beside other flags and a prompt, which then never runs.
	for _, args := range [][]string{{"--version"}, {"-p", "hi", "--version"}, {"--model", "m", "--version", "question"}} {
		out := &bytes.Buffer{}
		ran := false
		c := NewRootCmd(Streams{Out: out, Err: out}, envOf(nil), func(context.Context, *Options) error { ran = true; return nil })
		c.SetArgs(args)
		if err := c.Execute(); err != nil || out.String() != version.Line(host.Version()) || ran {
			t.Errorf("%q printed %q, %v (ran %v); want %q and no run", args, out, err, ran, version.Line(host.Version()))
		}
	}
}

func TestResumeWithoutAnID(t *testing.T) {
	tests := []struct{ args, want string }{
		{"-r", "-r ?"},
		{"-r -p", "-r ? -p"},
		{"-r abc123 -p hi", "-r abc123 -p hi"},
		{"--resume", "--resume ?"},
		{"-p -- -r", "-p -- -r"},
	}
	for _, tt := range tests {
		if got := strings.Join(normalizeArgs(strings.Fields(tt.args)), " "); got != tt.want {
			t.Errorf("normalizeArgs(%s) = %s, want %s", tt.args, got, tt.want)
		}
	}
	o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, normalizeArgs([]string{"-c", "-r"})...)
	if err != nil || !o.Continue || o.Resume != resumePick {
		t.Errorf("options %+v, %v", o, err)
	}
}

func TestUnquotedPromptsThatStartWithHelp(t *testing.T) {
	for _, args := range [][]string{{"-p", "help", "me", "fix", "this"}, {"-p", "completion", "of", "the", "task"}} {
		o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, args...)
		if err != nil || o.Prompt != strings.Join(args[1:], " ") {
			t.Errorf("%v: options %+v, %v", args, o, err)
		}
	}
}
