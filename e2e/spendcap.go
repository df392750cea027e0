package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
)

// The spend cap's scenario: a three-step task whose every request reports
// 1000 input tokens, at the price SpendCapConfig sets ($0.60 per million
// tokens): $0.0006 a request. A cap of SpendCapUSD ($0.001) lets two
// requests go and stops the run before the third.
const (
	SpendCapUSD = "0.001"
	// SpendCapFirst and SpendCapSecond are the text of the task's first
	// two steps, SpendCapAnswer its answer (never reached under the cap).
	SpendCapFirst  = "First I list the files."
	SpendCapSecond = "Now I list them again."
	SpendCapAnswer = "All three steps are done."
	// SpendCapReached is how the line that ends a capped run begins.
	SpendCapReached = "Stopped: the session's spend cap of $0.0010 was reached ($0.0012"
)

// SpendCapTask is the three-step task's replies: two steps that write a
// sentence and list the files, then the answer.
func SpendCapTask() []scripted.Reply {
	step := func(id, text string) scripted.Reply {
		r := scripted.ToolCalls(scripted.Call{ID: id, Name: "list_files", Arguments: `{}`}).WithUsage(1000, 0)
		r.Text = text
		return r
	}
	return []scripted.Reply{step("ls1", SpendCapFirst), step("ls2", SpendCapSecond), scripted.Text(SpendCapAnswer).WithUsage(1000, 0)}
}

// SpendCapConfig writes a config file whose one profile, s, runs
// scripted-model at srv's URL priced at $0.60 per million input and
// output tokens, with extra added at its top (top-level keys), and
// returns its path.
func SpendCapConfig(t *testing.T, url, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := extra + "\n[profiles.s]\nbase_url = \"" + url + "\"\nmodel = \"scripted-model\"\n[profiles.s.price]\ninput = 0.6\noutput = 0.6\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
