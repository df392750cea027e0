package lsp

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// A server's source and code are shown bounded, on one line: a hostile
// one cannot flood the model's context through them.
func TestADiagnosticsSourceAndCodeAreBounded(t *testing.T) {
	m := New(Options{Dir: t.TempDir()})
	d := m.diagnostic("/elsewhere/a.go", "x\n", protocol.Diagnostic{Message: "bad", Source: strings.Repeat("s", 10000), Code: "c\n" + strings.Repeat("é", 5000)}, true)
	if len(d.Source) > maxTag+len("…") || len(d.Code) > maxTag+len("…") || strings.Contains(d.Code, "\n") {
		t.Errorf("source %d bytes, code %d bytes (%q)", len(d.Source), len(d.Code), d.Code[:10])
	}
	if !strings.HasSuffix(d.Code, "…") || !strings.HasPrefix(d.Code, "c; é") {
		t.Errorf("code %q", d.Code)
	}
}
