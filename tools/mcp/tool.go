package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// tool is one tool of a server.
type tool struct {
	s    *server
	name string // the name offered: mcp__SERVER__TOOL
	orig string // the server's name for it
	def  tools.Definition
	// provisional marks a tool of the server's last known list, offered
	// while it starts: a call waits for the server and runs its tool of
	// that name.
	provisional bool
}

var _ tools.Tool = (*tool)(nil)

func newTool(s *server, name string, st *sdk.Tool, schema json.RawMessage) *tool {
	desc := strings.TrimSpace(st.Description)
	if desc == "" {
		desc = strings.TrimSpace(st.Title)
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of MCP server %s.", st.Name, s.cfg.Name)
	}
	def := tools.Definition{Name: name, Description: desc, Schema: schema, Effects: tools.EffectsUnknown}
	if st.Annotations != nil && st.Annotations.ReadOnlyHint {
		// The server's hint, not a guarantee; the user configured it.
		def.ReadOnly, def.Effects = true, tools.ReadsWorkspace
	}
	return &tool{s: s, name: name, orig: st.Name, def: def}
}

// Definition returns the tool's definition.
func (t *tool) Definition() tools.Definition { return t.def }

// Server returns the tool's server and its name there.
func (t *tool) Server() (server, tool string) { return t.s.cfg.Name, t.orig }

// Run calls the tool on its server, bounded by the server's timeout; with
// a Progress, the call carries a progressToken and the server's progress
// notifications reach it.
// Cancelling ctx cancels the call (MCP's cancellation notification) and
// returns ctx's error; every other problem is an error result.
//
// A tool of a server still starting (offered by its last known list)
// waits for the server first, as long as its start may take, and is an
// error result when it did not start or no longer has the tool.
func (t *tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	if t.provisional {
		real, res, err := t.s.whenStarted(ctx, t.orig)
		if real == nil {
			return res, err
		}
		return real.Run(ctx, call)
	}
	t.s.m.mu.Lock()
	cs, state := t.s.session, t.s.state
	t.s.m.mu.Unlock()
	if cs == nil || state != StateRunning {
		return tools.Errorf("the MCP server %s is not running (%s)", t.s.cfg.Name, state), nil
	}
	cctx, cancel := context.WithTimeout(ctx, t.s.cfg.Timeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: t.orig, Arguments: call.Args}
	if call.Progress != nil {
		token, remove := t.s.m.progress.add(t.s.cfg.Name, call.Progress)
		defer remove()
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(cctx, params)
	switch {
	case err == nil:
		return convert(res), nil
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf("the MCP server %s did not answer %s within %s; the call was cancelled", t.s.cfg.Name, t.orig, t.s.cfg.Timeout), nil
	}
	t.s.m.mu.Lock()
	state = t.s.state
	t.s.m.mu.Unlock()
	if state != StateRunning || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		t.s.died(err)
		return tools.Errorf("the MCP server %s stopped during the call (%v); it is being restarted, and its tools are offered again once it runs", t.s.cfg.Name, err), nil
	}
	return tools.Errorf("%s: %v", t.name, err), nil
}
