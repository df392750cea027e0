package lsp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A tool result's Report reads the same whether it comes straight from the
// session or went through JSON (a resumed session, another process); the
// content splits into the tool's words and the <diagnostics> block.
func TestReportOfMeta(t *testing.T) {
	rep := Report{New: []Diagnostic{{Path: "b.go", Line: 3, Column: 2, Severity: "error", Message: "undefined: x", Source: "compiler"}},
		More: 1, Notes: []string{"gopls had not finished checking after 2s; diagnostics may be incomplete"}, Checked: []string{"gopls"}}
	data, err := json.Marshal(map[string]any{MetaKey: rep})
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON map[string]any
	if err := json.Unmarshal(data, &viaJSON); err != nil {
		t.Fatal(err)
	}
	for name, meta := range map[string]map[string]any{"value": {MetaKey: rep}, "pointer": {MetaKey: &rep}, "json": viaJSON} {
		got, ok := ReportOf(meta)
		if !ok || !reflect.DeepEqual(got, rep) {
			t.Errorf("%s: ReportOf = %+v, %v; want %+v", name, got, ok, rep)
		}
	}
	if _, ok := ReportOf(map[string]any{"diff": "x"}); ok {
		t.Error("a meta without diagnostics has a report")
	}
	if _, ok := ReportOf(map[string]any{MetaKey: "not a report"}); ok {
		t.Error("a string decodes as a report")
	}
	body, diags := SplitText("Edited a.go"+rep.Text(), rep)
	if body != "Edited a.go" || diags[:len("<diagnostics>")] != "<diagnostics>" {
		t.Errorf("SplitText = %q, %q", body, diags)
	}
	if body, diags := SplitText("no block", rep); body != "no block" || diags != "" {
		t.Errorf("SplitText without a block = %q, %q", body, diags)
	}
}
