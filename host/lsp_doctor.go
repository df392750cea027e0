package host

import (
	"fmt"
	"slices"

	"github.com/agent-dev/agent/lsp"
)

// PrintLanguageServers prints agent doctor's "language servers" section
// for a session in dir: each server the session would have (the config
// file's [lsp.NAME], the enabled plugins', the repository's .lsp.json and
// the common servers on PATH), where its command is found on PATH
// (lookPath, exec.LookPath in agent doctor) and where it comes from, a
// repository's with its trust; then the common servers that are not on
// PATH or are disabled. It starts no server.
func (h *Host) PrintLanguageServers(line func(string, string, ...any), dir string, lookPath func(string) (string, error)) {
	s := h.settings.LSP
	if s.Off {
		line("language servers", "off ([lsp] enabled = false)")
		return
	}
	plugins, _ := h.enabledPlugins(dir) // PrintPlugins shows their notes
	servers, warnings := lspServers(s, dir, plugins)
	line("language servers", "%d configured or found (each starts at the first file of its language; /lsp shows their state)", len(servers))
	for _, srv := range servers {
		where := "not found on PATH"
		if p, err := lookPath(srv.Command); err == nil {
			where = p
		}
		trust := ""
		if srv.Untrusted {
			trust = "; " + lspTrustState(h.trust, dir, srv)
		}
		line("  "+srv.Name, "%s: %s (from %s)%s", srv.Command, where, srv.Source, trust)
	}
	always := func(string) (string, error) { return "", nil }
	for _, k := range (lsp.Settings{}).Servers(always) {
		switch {
		case slices.Contains(s.Disabled, k.Name):
			line("  "+k.Name, "disabled in the config file ([lsp.%s] disabled = true)", k.Name)
		case !slices.ContainsFunc(servers, func(o lsp.Server) bool { return o.Name == k.Name }):
			line("  "+k.Name, "%s: not found on PATH", k.Command)
		}
	}
	for _, w := range warnings {
		line("", "%s", w)
	}
}

// lspTrustState says whether a repository's server srv runs: the trust
// store's answer for its definition in dir.
func lspTrustState(store *trustStore, dir string, srv lsp.Server) string {
	switch store.get(trustLSP, dir, srv.Name, srv.Definition()) {
	case trustAllowed:
		return "trusted"
	case trustRefused:
		return "refused for this repository"
	case trustChanged:
		return fmt.Sprintf("needs trust: its %s entry changed since it was answered; the interface asks, headless --trust-project", projectLSPFile)
	}
	return "needs trust: the interface asks at its first start, headless --trust-project"
}
