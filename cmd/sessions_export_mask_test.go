package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// An export masks the credentials a session holds (issue 42: masking
// wherever text leaves the store), in both formats; --unmasked writes them
// as stored.
func TestSessionsExportMasksCredentials(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "agent.db")
	s, err := sessions.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := s.Create(ctx, sessions.NewSession{Dir: t.TempDir(), Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123"
	msg := providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "push with GITHUB_TOKEN=" + token}}}
	if err := s.Recorder(ss.ID).AppendMessage(ctx, msg, providers.Usage{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, args := range [][]string{{"export", ss.ID}, {"export", "--format", "markdown", ss.ID}} {
		if out := mustRun(t, db, args...); strings.Contains(out, token) || !strings.Contains(out, "GITHUB_TOKEN=[secret masked]") {
			t.Errorf("sessions %s:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := mustRun(t, db, "export", "--unmasked", ss.ID); !strings.Contains(out, token) {
		t.Errorf("--unmasked masked the token:\n%s", out)
	}
}
