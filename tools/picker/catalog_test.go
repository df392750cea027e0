package picker

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

// echoTool is a minimal tool with a required string parameter.
type echoTool struct{ name string }

func (e echoTool) Definition() tools.Definition {
	return tools.Definition{
		Name:        e.name,
		Description: "Echo the text back.\n\nA longer description that only picked tools carry.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		ReadOnly:    true,
	}
}

func (e echoTool) Run(_ context.Context, call tools.Call) (tools.Result, error) {
	args := call.Args
	return tools.Result{Content: string(args)}, nil
}

// set is a session's picks for the tests.
type set struct {
	mu    sync.Mutex
	names []string
}

func (s *set) Picked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.names))
}

func (s *set) Pick(names ...string) (added []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if !slices.Contains(s.names, n) {
			s.names = append(s.names, n)
			added = append(added, n)
		}
	}
	return added
}

// session is a catalog with the picks of one session.
type session struct {
	*Catalog
	picks *set
	pick  tools.Tool
}

func (s session) Offers() []Offer  { return s.Catalog.Offers(s.picks.Picked(), nil) }
func (s session) Picked() []string { return s.Catalog.Full(s.picks.Picked()) }
func (s session) Resolve(name, args string) (tools.Tool, json.RawMessage, error) {
	return s.Catalog.Resolve(name, args, s.picks)
}

func newSet(t *testing.T, mode Mode) session {
	t.Helper()
	reg, err := tools.NewRegistry(echoTool{"grep"}, echoTool{"read_file"})
	if err != nil {
		t.Fatal(err)
	}
	c, picks := New(reg, mode), &set{}
	return session{Catalog: c, picks: picks, pick: pickTool{c, picks}}
}

func TestSwapModeOffersBriefsUntilPicked(t *testing.T) {
	s := newSet(t, ModeSwap)
	offers := s.Offers()
	if len(offers) != 3 || offers[0].Name != PickToolsName || offers[0].Schema == nil {
		t.Fatalf("first offer must be pick_tools with a schema, got %+v", offers)
	}
	for _, o := range offers[1:] {
		if o.Schema != nil || o.Description != "Echo the text back." {
			t.Errorf("%s offered as %+v, want a brief without schema", o.Name, o)
		}
	}

	res, err := s.pick.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["grep"]}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content, "grep") {
		t.Fatalf("pick grep: %+v, %v", res, err)
	}
	offers = s.Offers()
	if offers[1].Name != "grep" || offers[1].Schema == nil || !strings.Contains(offers[1].Description, "longer description") {
		t.Errorf("picked grep offered as %+v, want full description and schema", offers[1])
	}
	if offers[2].Schema != nil {
		t.Errorf("read_file was not picked but carries a schema")
	}

	// A second pick of the same tool changes nothing: the offers stay
	// byte-identical, so the provider's prompt cache stays warm.
	before, _ := json.Marshal(s.Offers())
	res, _ = s.pick.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["grep"]}`)})
	if added := res.Meta["added"].([]string); len(added) != 0 {
		t.Errorf("picking grep again added %v", added)
	}
	if after, _ := json.Marshal(s.Offers()); string(after) != string(before) {
		t.Errorf("offers changed after a repeated pick")
	}
}

func TestOffersDependOnPicksAlone(t *testing.T) {
	a, b := newSet(t, ModeSwap), newSet(t, ModeSwap)
	a.picks.Pick("read_file", "grep")
	b.picks.Pick("grep", "read_file")
	ja, _ := json.Marshal(a.Offers())
	jb, _ := json.Marshal(b.Offers())
	if string(ja) != string(jb) {
		t.Errorf("the same picks in another order give other offers:\n%s\n%s", ja, jb)
	}
}

func TestPickUnknownNamesListsValidOnes(t *testing.T) {
	s := newSet(t, ModeSwap)
	res, _ := s.pick.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["grep","glob"]}`)})
	if !res.IsError || !strings.Contains(res.Content, "glob") || !strings.Contains(res.Content, "grep, read_file") {
		t.Errorf("result %q should be an error naming glob and listing the tools", res.Content)
	}
	if got := s.Picked(); len(got) != 1 || got[0] != "grep" {
		t.Errorf("the known name should still be picked, picked = %v", got)
	}
}

func TestResolveUnpickedTool(t *testing.T) {
	s := newSet(t, ModeSwap)
	// Valid arguments to a tool seen only as a brief: it runs and becomes picked.
	if _, raw, err := s.Resolve("grep", `{"text":"x"}`); err != nil || string(raw) != `{"text":"x"}` {
		t.Fatalf("Resolve valid = %s, %v", raw, err)
	}
	if got := s.Picked(); len(got) != 1 || got[0] != "grep" {
		t.Errorf("picked = %v, want [grep]", got)
	}
	// Invalid arguments to a brief tool: the error carries the schema.
	_, _, err := s.Resolve("read_file", `{"path":"x"}`)
	if err == nil || !strings.Contains(err.Error(), `"required":["text"]`) {
		t.Errorf("error %v should contain read_file's schema", err)
	}
	if got := s.Picked(); len(got) != 2 {
		t.Errorf("read_file should be picked after a bad call, picked = %v", got)
	}
	// Invalid arguments to a picked tool: no schema dump, the model has it.
	_, _, err = s.Resolve("grep", `{"text":1}`)
	if err == nil || strings.Contains(err.Error(), "parameter schema") {
		t.Errorf("error for a picked tool = %v", err)
	}
	if _, _, err := s.Resolve("nope", `{}`); err == nil || !strings.Contains(err.Error(), "pick_tools, grep, read_file") {
		t.Errorf("unknown tool error = %v", err)
	}
	if _, _, err := s.Resolve(PickToolsName, `{"names":[]}`); err == nil {
		t.Errorf("pick_tools with no names should be refused")
	}
}

func TestAllModeOffersEverySchema(t *testing.T) {
	s := newSet(t, ModeAll)
	offers := s.Offers()
	if len(offers) != 2 {
		t.Fatalf("all mode offers %d tools, want 2 (no pick_tools)", len(offers))
	}
	for _, o := range offers {
		if o.Schema == nil {
			t.Errorf("%s has no schema in all mode", o.Name)
		}
	}
	if _, _, err := s.Resolve(PickToolsName, `{"names":["grep"]}`); err == nil {
		t.Errorf("pick_tools must not exist in all mode")
	}
}

func TestPickToolsConformance(t *testing.T) {
	s := newSet(t, ModeSwap)
	toolstest.Run(t, toolstest.Suite{
		Tool:          s.pick,
		SchemaInvalid: []string{`{}`, `{"names":"grep"}`, `{"names":[]}`},
		BadArgs:       []string{`{"names":["no_such_tool"]}`},
	})
}

func TestPickingOneToolOfAGroupPicksTheGroup(t *testing.T) {
	reg, err := tools.NewRegistry(echoTool{"grep"}, echoTool{"read_file"}, echoTool{"mcp__gh__issue"})
	if err != nil {
		t.Fatal(err)
	}
	c, picks := New(reg, ModeSwap, []string{"grep", "read_file", "not_a_tool"}), &set{}
	if _, _, err := c.Resolve("grep", `{"text":"x"}`, picks); err != nil {
		t.Fatal(err)
	}
	if got := picks.Picked(); strings.Join(got, ",") != "grep,read_file" {
		t.Errorf("calling grep picked %v, want its group", got)
	}
	if offers := c.Offers(picks.Picked(), nil); offers[0].Name != PickToolsName {
		t.Errorf("pick_tools must stay while a tool is left to pick: %v", offers[0].Name)
	}
	res, _ := pickTool{c, picks}.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["mcp__gh__issue"]}`)})
	if added := res.Meta["added"].([]string); strings.Join(added, ",") != "mcp__gh__issue" {
		t.Errorf("added %v", added)
	}
	for _, o := range c.Offers(picks.Picked(), nil) {
		if o.Name == PickToolsName || o.Schema == nil {
			t.Errorf("with every tool picked, %s is offered as %+v", o.Name, o)
		}
	}
}
