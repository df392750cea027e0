package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// A hook's transcript holds the session's messages, one JSON line each.
// A later hook's export appends what was recorded since to the same file
// (not a new file with the whole history again); a file someone else
// changed is written whole again.
func TestHookTranscriptAppendsWhatWasRecordedSince(t *testing.T) {
	ctx := context.Background()
	store, err := sessions.Open(ctx, filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sess, err := store.Create(ctx, sessions.NewSession{Dir: t.TempDir(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	rec := store.Recorder(sess.ID)
	say := func(role providers.Role, text string) {
		t.Helper()
		if err := rec.AppendMessage(ctx, providers.Message{Role: role, Parts: []providers.Part{providers.Text{Text: text}}}, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	h := &hookSet{store: store, transcripts: filepath.Join(filepath.Dir(store.Path()), "transcripts")}
	export := func() (string, []string) {
		t.Helper()
		path := h.transcript(ctx, sess.ID)
		data, err := os.ReadFile(path)
		if path == "" || err != nil {
			t.Fatalf("transcript %q: %v", path, err)
		}
		var texts []string
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var l struct {
				Message struct {
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil || len(l.Message.Content) != 1 {
				t.Fatalf("line %q: %v", line, err)
			}
			texts = append(texts, l.Message.Content[0].Text)
		}
		return path, texts
	}

	say(providers.RoleUser, "one")
	say(providers.RoleAssistant, "two")
	path, got := export()
	if strings.Join(got, ",") != "one,two" {
		t.Fatalf("first export: %v", got)
	}
	before, _ := os.Stat(path)
	say(providers.RoleUser, "three")
	if _, got = export(); strings.Join(got, ",") != "one,two,three" {
		t.Errorf("second export: %v", got)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Errorf("the second export replaced the file instead of appending to it")
	}
	if _, got = export(); strings.Join(got, ",") != "one,two,three" {
		t.Errorf("an export with nothing new: %v", got)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil { // someone else's edit
		t.Fatal(err)
	}
	say(providers.RoleAssistant, "four")
	if _, got = export(); strings.Join(got, ",") != "one,two,three,four" {
		t.Errorf("after the file was changed: %v", got)
	}
	// A hook is another program: what the session holds of a credential
	// reaches it masked (issue 42: masking wherever text leaves the store).
	say(providers.RoleUser, "deploy with GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 please")
	if _, got = export(); got[len(got)-1] != "deploy with GITHUB_TOKEN=[secret masked] please" {
		t.Errorf("the credential reached the transcript: %q", got[len(got)-1])
	}
}

// BenchmarkHookTranscript is a hook's export in a session of 500
// messages, after one more message was recorded (a hook on every tool
// call of a long session).
//
//	go test -run '^$' -bench HookTranscript ./cmd/
func BenchmarkHookTranscript(b *testing.B) {
	ctx := context.Background()
	store, err := sessions.Open(ctx, filepath.Join(b.TempDir(), "agent.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	sess, err := store.Create(ctx, sessions.NewSession{Dir: b.TempDir(), Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	rec := store.Recorder(sess.ID)
	msg := providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: strings.Repeat("a line of the session ", 25)}}}
	for range 500 {
		if err := rec.AppendMessage(ctx, msg, providers.Usage{}); err != nil {
			b.Fatal(err)
		}
	}
	h := &hookSet{store: store, transcripts: filepath.Join(filepath.Dir(store.Path()), "transcripts")}
	h.transcript(ctx, sess.ID)
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := rec.AppendMessage(ctx, msg, providers.Usage{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if h.transcript(ctx, sess.ID) == "" {
			b.Fatal("no transcript")
		}
	}
}
