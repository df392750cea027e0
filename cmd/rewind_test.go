package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// TestRewindFlags: the flags fill the options; a missing --to and an
// unknown or summarizing scope are usage errors before anything runs.
func TestRewindFlags(t *testing.T) {
	tests := []struct {
		args []string
		want *rewindOptions
		code int
	}{
		{[]string{"--to", "3"}, &rewindOptions{To: "3", Scope: host.ScopeCode}, ExitOK},
		{[]string{"--session", "abcd", "--to", "1f3e2d4c", "--scope", "both", "--dry-run", "--force", "--json"},
			&rewindOptions{Session: "abcd", To: "1f3e2d4c", Scope: host.ScopeBoth, DryRun: true, Force: true, JSON: true}, ExitOK},
		{[]string{"--to", "2", "--scope", "conversation"}, &rewindOptions{To: "2", Scope: host.ScopeConversation}, ExitOK},
		{[]string{"--scope", "code"}, nil, ExitUsage},
		{[]string{"--to", "2", "--scope", "files"}, nil, ExitUsage},
		{[]string{"--to", "2", "--scope", "summarize"}, nil, ExitUsage},
		{[]string{"--to", "2", "extra"}, nil, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var got *rewindOptions
			var out bytes.Buffer
			c := newRewindCmd(Streams{Out: &out, Err: &out}, envOf(nil), &Options{}, func(_ context.Context, o *rewindOptions) error {
				got = o
				return nil
			})
			c.SetArgs(tt.args)
			c.SetOut(&out)
			c.SetErr(&out)
			c.SilenceErrors, c.SilenceUsage = true, true
			err := c.Execute()
			if code := exitCode(err); code != tt.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tt.code)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("options %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSessionsShowCheckpointsAndBranches: show lists a session's
// checkpoints (number, prompt, files changed, undone) and the sessions
// forked from it with the prompt they were forked before; a fork says
// whose it is.
func TestSessionsShowCheckpointsAndBranches(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "a.db")
	s, err := sessions.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sess, err := s.Create(ctx, sessions.NewSession{Dir: t.TempDir(), Model: "m", Title: "Tidy"})
	must(err)
	rec := s.Recorder(sess.ID)
	prompts := []struct {
		text    string
		changed []string
	}{{"rename the helper\nsecond line", []string{"a.go", "b.go"}}, {"run gofmt", nil}, {"add a test", []string{"a_test.go"}}}
	seqs := map[int]int{}
	for i, p := range prompts {
		seq, err := s.SaveCheckpoint(ctx, sess.ID, sessions.NewCheckpoint{ID: "0000000" + string(rune('1'+i)) + "-0000-4000-8000-000000000000", Tree: "t"})
		must(err)
		seqs[i+1] = seq
		must(rec.AppendMessage(ctx, providers.UserText(p.text), providers.Usage{}))
		must(rec.AppendMessage(ctx, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "done"}}}, providers.Usage{}))
		must(s.EndCheckpoint(ctx, sess.ID, seq, "e", p.changed))
	}
	must(s.SetCheckpointUndone(ctx, sess.ID, seqs[3], true))
	must(s.SetStatus(ctx, sess.ID, sessions.StatusCompleted))
	fork, err := s.ForkAt(ctx, sess.ID, seqs[2])
	must(err)
	s.Close()

	out := mustRun(t, db, "show", sess.ID)
	for _, want := range []string{
		"checkpoints (agent rewind --session " + sess.ID + " --to N):",
		`  1  `, `"rename the helper"  files changed: a.go, b.go`,
		`"run gofmt"  no files changed`,
		`"add a test"  files changed: a_test.go  [undone]`,
		"branches (sessions forked from this one):",
		"  " + fork.ID + "  before prompt 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, db, "show", fork.ID)
	if !strings.Contains(out, "forked from session "+sess.ID+" before its prompt 2\n") || !strings.Contains(out, `  1  `) || strings.Contains(out, "run gofmt\"  no") {
		t.Errorf("the fork's show:\n%s", out)
	}
}
