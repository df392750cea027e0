package host

import (
	"os"
	"path/filepath"
	"testing"
)

// The next run says so when AGENTS.md changed during a run, or when a run
// that did not end cleanly left it different; not when the person changed
// it between runs.
func TestAgentsMDChangeNotice(t *testing.T) {
	type step struct {
		before  string // AGENTS.md before the run ("" none)
		during  string // what the run writes ("-": nothing)
		finish  bool   // the run ends cleanly
		after   string // what the person writes after the run ("-": nothing)
		wantMsg bool   // the run's start shows the notice
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"first run", []step{{"a", "-", true, "-", false}}},
		{"unchanged", []step{{"a", "-", true, "-", false}, {"a", "-", true, "-", false}}},
		{"changed by a run", []step{{"a", "b", true, "-", false}, {"b", "-", true, "-", true}, {"b", "-", true, "-", false}}},
		{"created by a run", []step{{"", "b", true, "-", false}, {"b", "-", true, "-", true}}},
		{"removed by a run", []step{{"a", "", true, "-", false}, {"", "-", true, "-", true}}},
		{"changed by the person", []step{{"a", "-", true, "b", false}, {"b", "-", true, "-", false}}},
		{"changed by a killed run", []step{{"a", "b", false, "-", false}, {"b", "-", true, "-", true}}},
		{"killed run, unchanged", []step{{"a", "-", false, "-", false}, {"a", "-", true, "-", false}}},
		// The killed run's record is shorter than the clean run's before it.
		{"changed by a killed run after a clean one", []step{{"a", "-", true, "-", false}, {"a", "b", false, "-", false}, {"b", "-", true, "-", true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			set := func(text string) {
				p := filepath.Join(dir, "AGENTS.md")
				if text == "" {
					os.Remove(p)
					return
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			set(c.steps[0].before)
			for i, s := range c.steps {
				notice, w := watchAgentsMD(data, root, dir)
				if (notice != "") != s.wantMsg {
					t.Errorf("run %d: notice %q, want shown = %v", i, notice, s.wantMsg)
				}
				if s.during != "-" {
					set(s.during)
				}
				if s.finish {
					w.finish()
				}
				if s.after != "-" {
					set(s.after)
				}
			}
		})
	}
}
