package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/lsp"
)

// diagFold is how many of a change's new diagnostics a folded block shows;
// an expanded one shows them all (a report keeps at most 20).
const diagFold = 5

// setDiagnostics gives the block the diagnostics its change introduced (a
// result's Meta "diagnostics", package lsp), shown under its result.
func (b *toolBlock) setDiagnostics(r lsp.Report) {
	b.diags = r
	b.cacheOK = false
}

// diagLines are the new diagnostics at width: one per line, "✗
// path:line:col message" in the error colour or "⚠ …" in the warning
// colour, at most diagFold unless expanded, then "+N more", then the
// servers' notes dimmed. None when there are none.
func (b *toolBlock) diagLines(width int) []string {
	r := b.diags
	show := len(r.New)
	if !b.expanded && show > diagFold {
		show = diagFold
	}
	lines := make([]string, 0, show+1+len(r.Notes))
	for _, d := range r.New[:show] {
		icon, st := "⚠", b.st.DiagWarn
		if d.Severity == "error" {
			icon, st = "✗", b.st.DiagError
		}
		text := fmt.Sprintf("%s %s:%d:%d %s", icon, d.Path, d.Line, d.Column, oneLine(d.Message))
		lines = append(lines, st.Render(cutTo(text, width)))
	}
	if rest := len(r.New) - show + r.More; rest > 0 {
		lines = append(lines, b.st.Dim.Render(cutTo(fmt.Sprintf("+%d more %s", rest, plural(rest, "diagnostic", "diagnostics")), width)))
	}
	for _, n := range r.Notes {
		for _, l := range wrapText(oneLine(n), max(width, 1)) {
			lines = append(lines, b.st.Dim.Render(l))
		}
	}
	return lines
}

// diagCount is the status line's count of the session's diagnostics:
// "✗ 2 ⚠ 5", a part left out when it is zero; "" when both are.
func diagCount(errors, warnings int) string {
	var parts []string
	if errors > 0 {
		parts = append(parts, "✗ "+strconv.Itoa(errors))
	}
	if warnings > 0 {
		parts = append(parts, "⚠ "+strconv.Itoa(warnings))
	}
	return strings.Join(parts, " ")
}

// lspNote is /lsp's answer: each language server with its state, root,
// files and diagnostics, and why it does not run; or, with none, where
// servers come from.
func lspNote(states []lsp.State) string {
	if len(states) == 0 {
		return "No language servers: none of " + strings.Join(lsp.KnownNames(), ", ") +
			" is on PATH, and none is configured ([lsp.NAME] in the config file, or a plugin's or the repository's .lsp.json)."
	}
	var b strings.Builder
	b.WriteString("Language servers:")
	for _, s := range states {
		fmt.Fprintf(&b, "\n%s: %s", s.Name, s.State)
		if s.Root != "" && s.Root != "." {
			fmt.Fprintf(&b, " in %s", s.Root)
		}
		if s.State == "running" || s.Files > 0 {
			fmt.Fprintf(&b, " · %d %s", s.Files, plural(s.Files, "file", "files"))
		}
		if s.State == "running" {
			fmt.Fprintf(&b, " · %d %s, %d %s", s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
		}
		if s.Restarts > 0 {
			fmt.Fprintf(&b, " · %d %s", s.Restarts, plural(s.Restarts, "restart", "restarts"))
		}
		fmt.Fprintf(&b, " · %s (%s)", s.Command, s.Source)
		if s.Detail != "" {
			fmt.Fprintf(&b, "\n  %s", oneLine(s.Detail))
		}
	}
	return b.String()
}

// lspCommand is /lsp: the front-end's language servers.
func (m *Model) lspCommand() tea.Cmd {
	var states []lsp.State
	if m.cfg.LanguageServers != nil {
		states = m.cfg.LanguageServers()
	}
	return m.showNote(lspNote(states))
}

// refreshDiagnostics reads the session's diagnostics count into the status
// line (Config.Diagnostics: cheap, no I/O).
func (m *Model) refreshDiagnostics() {
	if m.cfg.Diagnostics != nil {
		m.bar.errors, m.bar.warnings = m.cfg.Diagnostics()
	}
}
