package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// ResourceToolName is the name of the tool that lists and reads the
// servers' resources.
const ResourceToolName = "mcp_resource"

// resourceTool lists and reads MCP resources. It is offered while a
// running server declares resources.
type resourceTool struct{ m *Manager }

var _ tools.Tool = resourceTool{}

var resourceSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"server":{"type":"string","description":"The MCP server's name; omit to list every server's resources."},` +
	`"uri":{"type":"string","description":"The resource to read (a URI from the list or a resource link); omit to list."}},` +
	`"additionalProperties":false}`)

// Definition returns the tool's definition.
func (resourceTool) Definition() tools.Definition {
	return tools.Definition{
		Name: ResourceToolName,
		Description: "List or read the resources of the MCP servers (files, documents, records they offer, and the resource links in their tools' results).\n\n" +
			"Without uri it lists the resources (of server, or of all servers); with server and uri it reads one.",
		Schema: resourceSchema, ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindRead,
		Summarize: func(args string) tools.Summary {
			var a struct{ Server, URI string }
			if json.Unmarshal([]byte(args), &a) != nil || a.URI == "" {
				return tools.Summary{Title: strings.TrimSpace("list " + a.Server), Full: tools.PrettyJSON(args)}
			}
			return tools.Summary{Title: a.Server + ":" + a.URI, Full: tools.PrettyJSON(args)}
		},
	}
}

// Run lists or reads; a missing server or a server's error is an error
// result.
func (t resourceTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("bad arguments: %v", err), nil
	}
	if a.URI == "" {
		return t.list(a.Server), nil
	}
	if a.Server == "" {
		a.Server = t.serverOf(a.URI)
		if a.Server == "" {
			return tools.Errorf("say which server holds %s (server)", a.URI), nil
		}
	}
	c, err := t.m.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Content: c.Text, Images: c.Images, Meta: map[string]any{"bytes": len(c.Text)}}, nil
}

// list is the resources of server ("" all), one a line.
func (t resourceTool) list(server string) tools.Result {
	var b strings.Builder
	n := 0
	for _, r := range t.visible() {
		if server != "" && r.Server != server {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s %s", r.Server, r.URI)
		if r.Name != "" {
			fmt.Fprintf(&b, " %q", r.Name)
		}
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " (%s)", r.MIMEType)
		}
		if r.Description != "" && r.Description != r.Name {
			fmt.Fprintf(&b, ": %s", tools.OneLine(r.Description))
		}
		b.WriteByte('\n')
	}
	if n == 0 {
		if server != "" {
			return tools.Result{Content: fmt.Sprintf("The MCP server %s lists no resources (or is not running).", server)}
		}
		return tools.Result{Content: "No MCP server lists resources."}
	}
	return tools.Result{Content: capText(strings.TrimRight(b.String(), "\n")), Meta: map[string]any{"resources": n}}
}

// serverOf is the one server that lists uri, "" when none or several.
func (t resourceTool) serverOf(uri string) string {
	found := ""
	for _, r := range t.visible() {
		if r.URI == uri {
			if found != "" && found != r.Server {
				return ""
			}
			found = r.Server
		}
	}
	return found
}

// visible is the running servers' resources but those of the servers
// Options.HideResources hides.
func (t resourceTool) visible() []Resource {
	rs := t.m.Resources()
	hide := t.m.opts.HideResources
	if hide == nil {
		return rs
	}
	return slices.DeleteFunc(rs, func(r Resource) bool { return hide(r.Server) })
}
