package cmd

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// A file name the model chose may hold a newline or a terminal's escape
// sequence: the summaries show it on its own line, escaped, so it can
// neither forge a line nor drive the terminal.
func TestRewindAndUndoSummariesEscapeFileNames(t *testing.T) {
	evil := "x\x1b]52;c;aGk=\x07\n  restored .bashrc  +0 −0"
	res := host.RewindResult{
		Checkpoint: sessions.Checkpoint{N: 1, Prompt: "p"},
		Restored:   []checkpoint.Change{{Path: evil, Action: checkpoint.Modify}, {Path: "plain.txt", Action: checkpoint.Modify}},
		Plan:       checkpoint.Plan{Kept: []checkpoint.Change{{Path: "bad\xffname\r", Action: checkpoint.Delete}}},
	}
	shown := map[string]string{
		"agent rewind":  rewindSummary("s", host.ScopeCode, res, false),
		"agent undo":    undoSummary("s", res, false),
		"sessions show": changedFiles(sessions.Checkpoint{Changed: []string{evil, "plain.txt"}, EndTree: "t"}),
	}
	for what, out := range shown {
		if strings.ContainsAny(out, "\x1b\x07\r") || strings.Contains(out, "\xff") {
			t.Errorf("%s shows a control character or a byte that is not UTF-8:\n%q", what, out)
		}
		if strings.Contains(out, "\n  restored .bashrc") {
			t.Errorf("%s shows a forged line:\n%s", what, out)
		}
		if !strings.Contains(out, "plain.txt") {
			t.Errorf("%s does not show plain.txt as it is:\n%s", what, out)
		}
	}
}
