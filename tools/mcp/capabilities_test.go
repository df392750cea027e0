package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/tools"
)

// featureServer is an MCP server with a tool that asks a form and one that
// lists the roots, a prompt with arguments and two resources.
func featureServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "features", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&sdk.Tool{Name: "ask", Description: "Ask.", InputSchema: obj},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":   map[string]any{"type": "string", "title": "Name"},
					"age":    map[string]any{"type": "integer", "default": 30},
					"member": map[string]any{"type": "boolean", "default": true},
					"colour": map[string]any{"type": "string", "enum": []string{"r", "g"}, "enumNames": []string{"Red", "Green"}, "default": "g"},
				},
				"required": []string{"name"},
			}})
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res.Content)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(b)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "open", Description: "Ask to open a page.", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"url": map[string]any{"type": "string"}}}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ URL string }
			json.Unmarshal(req.Params.Arguments, &a)
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in to Example.", URL: a.URL, ElicitationID: "e1"})
			if err != nil {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "error " + err.Error()}}}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "roots", Description: "Roots.", InputSchema: obj},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(uris, " ")}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*sdk.PromptArgument{
		{Name: "who", Required: true}, {Name: "style"}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			a := req.Params.Arguments
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprintf("Greet %s, style %q.", a["who"], a["style"])}},
				{Role: "assistant", Content: &sdk.TextContent{Text: "Sure."}},
			}}, nil
		})
	for _, name := range []string{"readme", "notes"} {
		s.AddResource(&sdk.Resource{Name: name, URI: "test://docs/" + name, MIMEType: "text/plain"},
			func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "the text of " + name}}}, nil
			})
	}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(handler)
	t.Cleanup(hs.Close)
	return hs.URL
}

func featureManager(t *testing.T, url string, elicit ElicitFunc) *Manager {
	t.Helper()
	m := NewManager([]Config{{Name: "f", URL: url}}, Options{Roots: []string{"/work/project"}, Elicit: elicit})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	m.Start(ctx)
	t.Cleanup(func() { cancel(); m.Close() })
	m.Wait(ctx)
	return m
}

func call(t *testing.T, m *Manager, name string) tools.Result {
	t.Helper()
	res, err := findTool(t, m, name).Run(context.Background(), tools.Call{Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestElicitation: a server's form reaches Elicit with its fields
// (required first); the answer goes back with the typed values converted
// and the defaults of the fields left out (SEP-1034); without Elicit the
// form is declined; a cancel is a cancel.
func TestElicitation(t *testing.T) {
	url := featureServer(t)
	var asked Elicitation
	m := featureManager(t, url, func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
		asked = e
		return ElicitAnswer{Action: ElicitAccept, Values: map[string]any{"name": "Ada", "age": "36", "colour": "Red"}}, nil
	})
	res := call(t, m, "mcp__f__ask")
	if want := `accept {"age":36,"colour":"r","member":true,"name":"Ada"}`; res.Content != want {
		t.Errorf("accepted form: %q, want %q", res.Content, want)
	}
	var names []string
	for _, f := range asked.Fields {
		names = append(names, f.Name)
	}
	if asked.Server != "f" || asked.Message != "Who are you?" || strings.Join(names, ",") != "name,age,colour,member" || !asked.Fields[0].Required {
		t.Errorf("asked %+v", asked)
	}

	headless := featureManager(t, url, nil)
	if res := call(t, headless, "mcp__f__ask"); res.Content != "decline null" {
		t.Errorf("headless: %q", res.Content)
	}
	defaults := NewManager([]Config{{Name: "f", URL: url, ElicitDefaults: true}}, Options{})
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defaults.Start(dctx)
	t.Cleanup(func() { dcancel(); defaults.Close() })
	defaults.Wait(dctx)
	// name is required and has no default: declined all the same.
	if res := call(t, defaults, "mcp__f__ask"); res.Content != "decline null" {
		t.Errorf("headless with defaults, a required field without one: %q", res.Content)
	}
	if got, err := FormContent([]Field{{Name: "age", Type: "integer", Default: 30.0}}, nil); err != nil || got["age"] != 30.0 {
		t.Errorf("defaults alone: %v %v", got, err)
	}
	cancelled := featureManager(t, url, func(context.Context, Elicitation) (ElicitAnswer, error) {
		return ElicitAnswer{Action: ElicitCancel}, nil
	})
	if res := call(t, cancelled, "mcp__f__ask"); res.Content != "cancel null" {
		t.Errorf("cancelled: %q", res.Content)
	}
}

func TestFormContent(t *testing.T) {
	fields := []Field{{Name: "n", Type: "number", Required: true}, {Name: "tags", Type: "array", Default: []any{"a"}}, {Name: "ok", Type: "boolean"}}
	got, err := FormContent(fields, map[string]any{"n": "2.5", "ok": "yes"})
	b, _ := json.Marshal(got)
	if err != nil || string(b) != `{"n":2.5,"ok":true,"tags":["a"]}` {
		t.Errorf("%s %v", b, err)
	}
	got, _ = FormContent(fields, map[string]any{"n": 1, "tags": "x, y"})
	if b, _ := json.Marshal(got); string(b) != `{"n":1,"tags":["x","y"]}` {
		t.Errorf("%s", b)
	}
	for _, bad := range []map[string]any{{}, {"n": "many"}, {"n": "1", "ok": "perhaps"}} {
		if _, err := FormContent(fields, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestRoots: the server sees the working directory as its root.
func TestRoots(t *testing.T) {
	m := featureManager(t, featureServer(t), nil)
	if res := call(t, m, "mcp__f__roots"); res.Content != "file:///work/project" {
		t.Errorf("roots: %q", res.Content)
	}
}

// TestPrompts: a server's prompts are commands with their arguments,
// positional or NAME=VALUE; a missing required argument is an error.
func TestPrompts(t *testing.T) {
	m := featureManager(t, featureServer(t), nil)
	ps := m.Prompts()
	if len(ps) != 1 || ps[0].Command != "mcp__f__greet" || ps[0].Hint() != "<who> [style]" || ps[0].Description != "Greet someone." {
		t.Fatalf("prompts %+v", ps)
	}
	ctx := context.Background()
	for line, want := range map[string]string{
		"/mcp__f__greet Ada":                   `Greet Ada, style "".`,
		"/mcp__f__greet Ada very warm":         `Greet Ada, style "very warm".`,
		`/mcp__f__greet style=dry "Ada Byron"`: `Greet Ada Byron, style "dry".`,
	} {
		got, ok, err := m.GetPrompt(ctx, line)
		if !ok || err != nil || got.Text != want+"\n\n(assistant) Sure." {
			t.Errorf("%s: %q %v %v", line, got.Text, ok, err)
		}
	}
	if _, ok, err := m.GetPrompt(ctx, "/mcp__f__greet"); !ok || err == nil || !strings.Contains(err.Error(), "who is required") {
		t.Errorf("missing argument: %v %v", ok, err)
	}
	if _, ok, _ := m.GetPrompt(ctx, "/mcp__f__nothing"); ok {
		t.Errorf("an unknown prompt was found")
	}
	if st := m.Status()[0]; strings.Join(st.Prompts, ",") != "mcp__f__greet" || st.Resources != 2 {
		t.Errorf("status %+v", st)
	}
}

// TestResourceTool: the mcp_resource tool lists the resources and reads
// one, with or without the server's name; an unknown server is an error
// result.
func TestResourceTool(t *testing.T) {
	m := featureManager(t, featureServer(t), nil)
	tool := findTool(t, m, ResourceToolName)
	if d := tool.Definition(); !d.ReadOnly || d.Effects.Unknown() {
		t.Errorf("definition %+v", d)
	}
	ctx := context.Background()
	run := func(args string) tools.Result {
		res, err := tool.Run(ctx, tools.Call{Args: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(`{}`); !strings.Contains(res.Content, `f test://docs/readme "readme" (text/plain)`) || !strings.Contains(res.Content, "test://docs/notes") {
		t.Errorf("list: %q", res.Content)
	}
	if res := run(`{"server":"f","uri":"test://docs/notes"}`); res.Content != "the text of notes" || res.IsError {
		t.Errorf("read: %+v", res)
	}
	if res := run(`{"uri":"test://docs/readme"}`); res.Content != "the text of readme" {
		t.Errorf("read without server: %+v", res)
	}
	if res := run(`{"server":"nope","uri":"test://docs/readme"}`); !res.IsError {
		t.Errorf("unknown server: %+v", res)
	}
}

func TestProgressText(t *testing.T) {
	for _, c := range []struct {
		p, total  float64
		msg, want string
	}{{3, 10, "Step 3", "3/10 Step 3"}, {3, 0, "Step 3", "Step 3"}, {3, 0, "", "progress 3"}, {1, 4, "", "progress 1/4"}} {
		if got := ProgressText(c.p, c.total, c.msg); got != c.want {
			t.Errorf("%v: %q, want %q", c, got, c.want)
		}
	}
}

// TestResourceToolHidesDeniedServers: the resources of a server that
// Options.HideResources hides are not listed, and a URI read without a
// server is not guessed to be that server's.
func TestResourceToolHidesDeniedServers(t *testing.T) {
	m := NewManager([]Config{{Name: "f", URL: featureServer(t)}, {Name: "secret", URL: featureServer(t)}},
		Options{HideResources: func(server string) bool { return server == "secret" }})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	m.Start(ctx)
	t.Cleanup(func() { cancel(); m.Close() })
	m.Wait(ctx)
	tool := findTool(t, m, ResourceToolName)
	run := func(args string) tools.Result {
		res, err := tool.Run(ctx, tools.Call{Args: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(`{}`); strings.Contains(res.Content, "secret") || !strings.Contains(res.Content, "f test://docs/readme") {
		t.Errorf("list: %q, want f's resources and none of secret's", res.Content)
	}
	if res := run(`{"server":"secret"}`); strings.Contains(res.Content, "test://") {
		t.Errorf("list of the hidden server: %q", res.Content)
	}
	// Both servers list the URI: with secret hidden, the read goes to f
	// (with both visible it would be ambiguous, an error).
	if res := run(`{"uri":"test://docs/readme"}`); res.IsError || res.Content != "the text of readme" {
		t.Errorf("read without server: %+v", res)
	}
}

// TestURLElicitation: where URL mode is declared, a server's request to
// open a page reaches the person with its URL and message, and their
// answer goes back; a URL that is not a plain http or https one is
// declined without asking; without ElicitURL nobody is asked.
func TestURLElicitation(t *testing.T) {
	url := featureServer(t)
	var asked []Elicitation
	ask := func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
		asked = append(asked, e)
		return ElicitAnswer{Action: ElicitAccept}, nil
	}
	start := func(opts Options) *Manager {
		m := NewManager([]Config{{Name: "f", URL: url}}, opts)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		m.Start(ctx)
		t.Cleanup(func() { cancel(); m.Close() })
		m.Wait(ctx)
		return m
	}
	open := func(m *Manager, page string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"url": page})
		res, err := findTool(t, m, "mcp__f__open").Run(context.Background(), tools.Call{Args: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content
	}
	m := start(Options{Elicit: ask, ElicitURL: true})
	if got := open(m, "https://auth.example.com/connect?session=1"); got != "accept" {
		t.Errorf("an https page, accepted: the server got %q", got)
	}
	if len(asked) != 1 || asked[0].URL != "https://auth.example.com/connect?session=1" || asked[0].Message != "Sign in to Example." || asked[0].Server != "f" || len(asked[0].Fields) != 0 {
		t.Fatalf("asked %+v", asked)
	}
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "https://user:secret@example.com/", "/relative"} {
		if got := open(m, bad); got != "decline" {
			t.Errorf("%s: the server got %q, want decline", bad, got)
		}
	}
	if len(asked) != 1 {
		t.Errorf("a bad URL reached the person: %+v", asked[1:])
	}
	formOnly := start(Options{Elicit: ask})
	if got := open(formOnly, "https://auth.example.com/"); got == "accept" {
		t.Errorf("URL mode not declared, yet the server got %q", got)
	}
	if len(asked) != 1 {
		t.Errorf("URL mode not declared, yet the person was asked: %+v", asked[1:])
	}
}
