package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
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

func TestTerminalWithoutPromptExplainsHeadlessMode(t *testing.T) {
	_, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, OutIsTerminal: true})
	if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "agent -p") {
		t.Errorf("got %v", err)
	}
}

func TestVersion(t *testing.T) {
	out := &bytes.Buffer{}
	c := NewRootCmd(Streams{Out: out, Err: out}, envOf(nil), nil)
	c.SetArgs([]string{"--version"})
	if err := c.Execute(); err != nil || !strings.HasPrefix(out.String(), "agent ") {
		t.Errorf("--version printed %q, %v", out, err)
	}
}
