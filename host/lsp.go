package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/plugin"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// projectLSPFile is where a repository defines its language servers, in
// the format of Claude Code's plugins (.lsp.json).
const projectLSPFile = ".lsp.json"

// trustLSP is the kind of a repository's language server in the trust
// store.
const trustLSP = "lsp"

// lspService is the session's language servers (package lsp): the config
// file's [lsp.NAME], the installed plugins' and, once trusted, the
// repository's .lsp.json, then the common servers found on PATH. None
// starts before a file of its language is read or changed. It gives the
// agent its manager (a.lsp: the edits' diagnostics, see lspNotes) and the
// lsp tool.
func lspService(env serviceEnv) (sessionService, error) {
	a := env.a
	servers, warnings := lspServers(a.settings.LSP, a.dir, a.plugins)
	a.warnings = append(a.warnings, warnings...)
	if len(servers) == 0 {
		return sessionService{}, nil
	}
	m := lsp.New(lsp.Options{Dir: a.dir, Root: a.root, Servers: servers, Wait: a.settings.LSP.Wait, Env: a.settings.CommandEnviron(),
		Allow: lspTrust(env.h.trust, a.dir, env.fe), Denied: a.protect.Paths().ReadDenied})
	a.lsp = m
	return sessionService{tools: []tools.Tool{lsp.Tool(m)}, close: m.Close}, nil
}

// lspServers are the servers of a session in dir: the config file's,
// the plugins', the repository's .lsp.json (marked for trust), then
// those found on PATH; a later one of an earlier one's name is left out.
func lspServers(s lsp.Settings, dir string, plugins []plugin.Plugin) ([]lsp.Server, []string) {
	if s.Off {
		return nil, nil
	}
	var warnings []string
	out := slices.Clone(s.Configured)
	add := func(list []lsp.Server) {
		for _, srv := range list {
			if !slices.ContainsFunc(out, func(o lsp.Server) bool { return o.Name == srv.Name }) && !slices.Contains(s.Disabled, srv.Name) {
				out = append(out, srv)
			}
		}
	}
	for _, p := range plugins {
		add(p.LSPServers) // their warnings are the plugin's
	}
	path := filepath.Join(dir, projectLSPFile)
	if data, err := readProjectFile(path); err == nil {
		list, w, perr := lsp.ParseClaude(data, path, nil)
		warnings = append(warnings, w...)
		if perr != nil {
			warnings = append(warnings, perr.Error())
		}
		for i := range list {
			list[i].Untrusted = true
		}
		add(list)
	} else if !errors.Is(err, fs.ErrNotExist) {
		warnings = append(warnings, fmt.Sprintf("%s: %v", path, err))
	}
	add(lsp.Settings{Disabled: s.Disabled}.Servers(lsp.LookPath))
	return out, warnings
}

// maxProjectFile bounds a repository's configuration file agent reads.
const maxProjectFile = 1 << 20

// readProjectFile reads a repository's configuration file: a regular
// file (after its symlinks) of at most maxProjectFile bytes, so that a
// named pipe or a link to /dev/zero does not hold the session's start.
func readProjectFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProjectFile+1))
	if err == nil && len(data) > maxProjectFile {
		err = fmt.Errorf("larger than %d KiB", maxProjectFile>>10)
	}
	return data, err
}

// lspTrust decides a repository's language server before its first
// start: the remembered answer for its definition, else the person's in
// the interface (remembered), else (headless) --trust-project. Servers
// of the person's own config, plugins and PATH need no answer.
func lspTrust(store *trustStore, dir string, fe FrontEnd) func(context.Context, lsp.Server) error {
	var mu sync.Mutex // one question at a time
	return func(ctx context.Context, srv lsp.Server) error {
		if !srv.Untrusted {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		def := srv.Definition()
		switch store.get(trustLSP, dir, srv.Name, def) {
		case trustAllowed:
			return nil
		case trustRefused:
			return fmt.Errorf("%s from %s: refused earlier for this repository", srv.Name, projectLSPFile)
		}
		if fe.Trust.Hooks {
			return nil
		}
		if fe.Trust.Ask == nil || store == nil {
			return fmt.Errorf("%s from %s runs this repository's command and is not trusted (the interface asks; headless: --trust-project)", srv.Name, projectLSPFile)
		}
		args, _ := json.Marshal(map[string]any{"from": filepath.Join(dir, projectLSPFile), "runs": shellJoin(append([]string{srv.Command}, srv.Args...)), "in": dir, "env": srv.Env})
		question := fmt.Sprintf("Start language server %s from %s? It runs this repository's command as you, outside the sandbox, while you work on its files (answer remembered).", srv.Name, projectLSPFile)
		allow, answered := fe.Trust.Ask(ctx, providers.ToolCall{ID: "lsp-trust-" + srv.Name, Name: "start language server " + srv.Name, Arguments: string(args)}, question)
		if ctx.Err() != nil || !answered {
			return fmt.Errorf("%s from %s: the question was not answered; asked again at the next start", srv.Name, projectLSPFile)
		}
		_ = store.set(trustLSP, dir, srv.Name, def, allow)
		if !allow {
			return fmt.Errorf("%s from %s: refused by the person", srv.Name, projectLSPFile)
		}
		return nil
	}
}

// lspNotes wraps next (nil: none) with the language servers of the
// session's directory: a read gives the file to its server (its
// diagnostics before any change), and the result of a file change or a
// command gets the errors and warnings it introduced (Meta "diagnostics"
// for front-ends). It runs after next, so a PostToolUse hook's change
// (gofmt -w) is part of what is checked.
func (a *agent) lspNotes(m *lsp.Manager, next loop.AfterCallFunc) loop.AfterCallFunc {
	if m == nil {
		return next
	}
	return func(ctx context.Context, c loop.AfterCall) tools.Result {
		res := c.Result
		if next != nil {
			res = next(ctx, c)
		}
		var args struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal([]byte(c.Call.Arguments), &args)
		var rep lsp.Report
		switch c.Call.Name {
		case "read_file":
			if !res.IsError && args.Path != "" {
				m.Open(args.Path)
			}
			return res
		case "edit_file", "write_file":
			if res.IsError || args.Path == "" {
				return res
			}
			rep = m.Change(ctx, []string{args.Path})
		case "bash":
			rep = m.Sync(ctx)
		default:
			return res
		}
		if rep.Empty() {
			return res
		}
		res.Content += rep.Text()
		meta := make(map[string]any, len(res.Meta)+1)
		for k, v := range res.Meta {
			meta[k] = v
		}
		meta[lsp.MetaKey] = rep
		res.Meta = meta
		return res
	}
}
