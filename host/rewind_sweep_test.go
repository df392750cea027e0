package host_test

import (
	"io/fs"
	"os"
	"path/filepath"
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
