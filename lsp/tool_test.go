package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-dev/agent/internal/scriptedlsp"
	"github.com/agent-dev/agent/tools"
)

func TestTheToolsBoundedOutputIsValidText(t *testing.T) {
	// Two hundred errors in accented text pass the tool's byte bound;
	// wherever it falls, the output holds whole characters.
	for _, pad := range []string{"", "x", "xx", "xxx"} {
		text := strings.Repeat("ERROR: x"+strings.Repeat("é", 100)+"\n", 9) + strings.Repeat("ERROR: "+pad+strings.Repeat("é", 100)+"\n", 191)
		m, dir := scriptedManager(t, map[string]string{}, generous, scripted(scriptedlsp.ModeNormal))
		writeFiles(t, dir, map[string]string{"a.txt": text})
		if rep := m.Change(context.Background(), []string{"a.txt"}); len(rep.New) == 0 {
			t.Fatalf("no diagnostics: %+v", rep)
		}
		res, err := Tool(m).Run(context.Background(), tools.Call{Args: json.RawMessage(`{"operation":"diagnostics","path":"a.txt"}`)})
		if err != nil || !strings.HasSuffix(res.Content, "(cut)") {
			t.Fatalf("want the output cut: %v %q", err, res.Content[max(0, len(res.Content)-40):])
		}
		if !utf8.ValidString(res.Content) {
			t.Errorf("pad %q: the output ends in a broken character: %q", pad, res.Content[len(res.Content)-20:])
		}
	}
}
