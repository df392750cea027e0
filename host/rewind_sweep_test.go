package host_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/providers/fake"
)

// The checkpoint store lives beside the session database, and a session
// that opens forgets the checkpoints of the sessions its database does not
// have: a second database in the same directory (--db) must not take the
// first one's checkpoints with it.
func TestASecondDatabaseBesideTheFirstLeavesItsCheckpoints(t *testing.T) {
	f, s := twoPrompts(t)
	id := s.ID()
	s.Close()
	past := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(filepath.Dir(f.db), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Base(filepath.Dir(filepath.Dir(p))) == "objects" {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Dir(filepath.Dir(f.config)), "XDG_DATA_HOME": filepath.Dir(f.db)}
	other, err := host.Open(t.Context(), host.Config{
		Flags: host.Flags{Model: "m", BaseURL: "http://127.0.0.1:1/v1", ConfigPath: f.config,
			DB: filepath.Join(filepath.Dir(f.db), "other.db"), MaxRetries: -1},
		Getenv:   func(k string) string { return env[k] },
		Provider: fake.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	o, err := other.OpenSession(t.Context(), host.Request{Dir: f.dir}, host.FrontEnd{Mode: host.ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	o.WaitSweep()
	o.Close()
	if _, err := f.h.Rewind(t.Context(), id, host.RewindRequest{To: "2", Scope: host.ScopeCode}); err != nil {
		t.Fatalf("rewinding the first database's session: %v", err)
	}
	if read(t, f.path("c.txt")) != "<missing>" {
		t.Error("the rewind did not restore the files")
	}
}

// A deleted session's checkpoints are forgotten by a later session of the
// project once the store's sweep is due (hourly: at other starts the store
// is not compared with the database).
func TestADeletedSessionsCheckpointsAreForgottenWhenTheSweepIsDue(t *testing.T) {
	f, s := twoPrompts(t, fake.Text("later"), fake.Text("later still"))
	id := s.ID()
	s.Close()
	store, err := f.h.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Delete(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	// refs returns the directories of the sessions' refs in the project's
	// store; age ages its sweep mark.
	refs := func() []string {
		dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(f.db), "checkpoints", "*", "*", "refs", "agent", "*"))
		var ids []string
		for _, d := range dirs {
			ids = append(ids, filepath.Base(d))
		}
		return ids
	}
	age := func() {
		marks, _ := filepath.Glob(filepath.Join(filepath.Dir(f.db), "checkpoints", "*", "*", "swept"))
		past := time.Now().Add(-2 * time.Hour)
		for _, m := range marks {
			os.Chtimes(m, past, past)
		}
	}
	has := func(ids []string) bool { return slices.Contains(ids, id) }
	if !has(refs()) {
		t.Fatalf("the session's checkpoints are not in the store: %v", refs())
	}

	// Swept as the first session opened: not due again yet.
	o := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	o.WaitSweep()
	o.Close()
	if !has(refs()) {
		t.Fatal("the store was compared with the database again within the hour")
	}
	age()
	o = f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeYolo})
	o.WaitSweep()
	o.Close()
	if has(refs()) {
		t.Fatalf("the deleted session's checkpoints are still there once the sweep was due: %v", refs())
	}
}
