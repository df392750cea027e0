package cmd

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tui"
	"github.com/agent-dev/agent/turn"
)

// mcpResources are the MCP servers' resources as @SERVER:URI mentions.
type mcpResources struct{ m *mcp.Manager }

var _ mention.Resources = mcpResources{}

// Names are the resources listed, "SERVER:URI" each.
func (r mcpResources) Names() []string {
	var out []string
	for _, res := range r.m.Resources() {
		out = append(out, res.Server+":"+res.URI)
	}
	return out
}

// Read reads one resource.
func (r mcpResources) Read(ctx context.Context, server, uri string) (string, []tools.Image, error) {
	c, err := r.m.ReadResource(ctx, server, uri)
	return c.Text, c.Images, err
}

// Server reports whether name is a running server's.
func (r mcpResources) Server(name string) bool {
	for _, s := range r.m.Status() {
		if s.Name == name && s.State == mcp.StateRunning {
			return true
		}
	}
	return false
}

// mcpPrompt expands a prompt that names an MCP server's prompt
// ("/mcp__everything__args-prompt Paris") into the prompt's text; ok is
// false for any other prompt. A prompt that cannot be had (a missing
// argument, the server's error) blocks the turn with the reason.
func (a *agent) mcpPrompt(ctx context.Context, typed string) (p turn.Prompt, notices []loop.Notice, blocked string, ok bool) {
	if a.mcp == nil || !strings.HasPrefix(typed, "/"+mcp.Prefix) {
		return turn.Prompt{}, nil, "", false
	}
	got, ok, err := a.mcp.GetPrompt(ctx, typed)
	if !ok {
		return turn.Prompt{}, nil, "", false
	}
	if err != nil {
		return turn.Prompt{}, nil, err.Error(), true
	}
	name, _, _ := strings.Cut(strings.TrimSpace(typed), " ")
	msg := providers.UserText(got.Text)
	for _, img := range got.Images {
		msg.Parts = append(msg.Parts, providers.Image{MediaType: img.MediaType, Data: img.Data})
	}
	return turn.Prompt{Message: msg}, []loop.Notice{{Source: "commands", Text: name + " (MCP prompt)"}}, "", true
}

// mcpCommands are the MCP servers' prompts as the interface offers them.
func (a *agent) mcpCommands() []tui.CustomCommand {
	if a.mcp == nil {
		return nil
	}
	var out []tui.CustomCommand
	for _, p := range a.mcp.Prompts() {
		out = append(out, tui.CustomCommand{Name: p.Command, ArgumentHint: p.Hint(), Description: p.Description + " (MCP " + p.Server + ")"})
	}
	return out
}

// tuiElicit asks the person an MCP server's form in the interface: one
// question listing the fields (type, whether required, default); its
// answers accept the defaults, take typed values (NAME=VALUE; ..., or a
// lone field's value), or decline; Esc cancels. A server's page to open
// (URL mode) is a question showing the URL whole and its host: open it
// (with open, and the answer accept, also when opening failed: warn says
// so, and the person has the URL) or decline.
func tuiElicit(approver *tui.Approver, open func(url string) error, warn func(string)) mcp.ElicitFunc {
	var n atomic.Int64
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		id := fmt.Sprintf("elicitation-%d", n.Add(1))
		call := providers.ToolCall{ID: id, Name: "mcp__" + e.Server, Arguments: "{}"}
		if e.URL != "" {
			return elicitLink(ctx, approver, call, e, open, warn)
		}
		d := approver.Ask(ctx, tui.Question{Call: call, Group: id, Form: true, Text: formText(e),
			Summary: tools.Summary{Title: e.Server + " asks", Full: e.Message}})
		if ans, refused, err := refusal(ctx, d); refused {
			return ans, err
		}
		return mcp.ElicitAnswer{Action: mcp.ElicitAccept, Values: formValues(e.Fields, d.Reason)}, nil
	}
}

// formText is a form's question: the server's message, then a line per
// field.
func formText(e mcp.Elicitation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server %s asks: %s", e.Server, strings.TrimSpace(e.Message))
	for _, f := range e.Fields {
		b.WriteString("\n  " + f.Name)
		var about []string
		if f.Type != "" {
			about = append(about, f.Type)
		}
		if f.Required {
			about = append(about, "required")
		}
		if len(f.Enum) > 0 {
			about = append(about, "one of "+strings.Join(f.Enum, ", "))
		}
		if f.Default != nil {
			about = append(about, fmt.Sprintf("default %v", f.Default))
		}
		if len(about) > 0 {
			b.WriteString(" (" + strings.Join(about, "; ") + ")")
		}
		if d := f.Description; d != "" {
			b.WriteString(": " + tools.OneLine(d))
		} else if f.Title != "" {
			b.WriteString(": " + f.Title)
		}
	}
	return b.String()
}

// formValues reads what the person typed: NAME=VALUE pairs separated by
// ";", or, for a form of one field, its value alone.
func formValues(fields []mcp.Field, typed string) map[string]any {
	typed = strings.TrimSpace(typed)
	out := map[string]any{}
	if typed == "" {
		return out
	}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
	}
	for _, part := range strings.Split(typed, ";") {
		k, v, ok := strings.Cut(part, "=")
		if k = strings.TrimSpace(k); ok && known[k] {
			out[k] = strings.TrimSpace(v)
		}
	}
	if len(out) == 0 && len(fields) == 1 {
		out[fields[0].Name] = typed
	}
	return out
}

// mcpSummary is one line of counts of a running server's prompts and
// resources ("" for none).
func mcpSummary(s mcp.Status) string {
	var parts []string
	if n := len(s.Prompts); n > 0 {
		sorted := append([]string(nil), s.Prompts...)
		sort.Strings(sorted)
		parts = append(parts, fmt.Sprintf("prompts: /%s", strings.Join(sorted, ", /")))
	}
	if s.Resources > 0 {
		parts = append(parts, fmt.Sprintf("%d resources (@%s:URI)", s.Resources, s.Name))
	}
	return strings.Join(parts, "; ")
}

// elicitLink asks the person whether to open a server's page, and opens
// it when they agree.
func elicitLink(ctx context.Context, approver *tui.Approver, call providers.ToolCall, e mcp.Elicitation,
	open func(string) error, warn func(string)) (mcp.ElicitAnswer, error) {
	host := e.URL
	if u, err := url.Parse(e.URL); err == nil {
		host = u.Host
	}
	text := fmt.Sprintf("The MCP server %s asks you to open a page of %s in your browser:", e.Server, host)
	full := e.URL
	if m := strings.TrimSpace(e.Message); m != "" {
		full = m + "\n" + e.URL
	}
	d := approver.Ask(ctx, tui.Question{Call: call, Group: call.ID, Link: true, Text: text,
		Summary: tools.Summary{Title: e.Server + " asks to open " + host, Full: full}})
	if ans, refused, err := refusal(ctx, d); refused {
		return ans, err
	}
	if err := open(e.URL); err != nil {
		warn(fmt.Sprintf("%v; open %s yourself", err, e.URL))
	}
	return mcp.ElicitAnswer{Action: mcp.ElicitAccept}, nil
}

// refusal is the answer to a server's question the person did not accept
// (refused true): ctx's error once the question was cancelled, cancel
// when they dismissed it (Esc), else decline.
func refusal(ctx context.Context, d loop.Decision) (ans mcp.ElicitAnswer, refused bool, err error) {
	switch {
	case ctx.Err() != nil:
		return mcp.ElicitAnswer{}, true, ctx.Err()
	case d.Why == tui.WhyDismissed:
		return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, true, nil
	case !d.Allow:
		return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, true, nil
	}
	return mcp.ElicitAnswer{}, false, nil
}
