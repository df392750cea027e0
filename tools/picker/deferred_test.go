package picker

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

func newPickCatalog(t *testing.T) (*Catalog, *set) {
	t.Helper()
	reg, err := tools.NewRegistry(echoTool{"grep"}, echoTool{"read_file"}, echoTool{"mcp__gh__issue"}, echoTool{"mcp__gh__pr"})
	if err != nil {
		t.Fatal(err)
	}
	return New(reg, ModePick, []string{"grep", "read_file"}).WithIndex("mcp__gh__issue", "mcp__gh__pr"), &set{}
}

func TestPickModeOffersEveryToolDeferredAndNeverChanges(t *testing.T) {
	c, picks := newPickCatalog(t)
	first := c.Offers(nil, nil)
	if first[0].Name != PickToolsName || first[0].Deferred {
		t.Fatalf("first offer = %+v, want pick_tools, not deferred", first[0])
	}
	desc := first[0].Description
	for _, want := range []string{"grep: Echo the text back.", "read_file: Echo the text back.", "mcp__gh__: issue, pr"} {
		if !strings.Contains(desc, want) {
			t.Errorf("pick_tools' description lacks %q:\n%s", want, desc)
		}
	}
	for _, o := range first[1:] {
		if !o.Deferred || o.Schema == nil || !strings.Contains(o.Description, "longer description") {
			t.Errorf("%s is offered as %+v, want deferred with its full definition", o.Name, o)
		}
	}
	res, err := pickTool{c, picks}.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["grep","mcp__gh__pr"]}`)})
	if err != nil || res.IsError {
		t.Fatalf("pick: %v %+v", err, res)
	}
	before, _ := json.Marshal(first)
	after, _ := json.Marshal(c.Offers(picks.Picked(), res.References))
	if string(after) != string(before) {
		t.Errorf("a pick changed the offers:\nbefore %s\nafter  %s", before, after)
	}
}

func TestPickModeResultLoadsTheDefinitions(t *testing.T) {
	c, picks := newPickCatalog(t)
	p := pickTool{c, picks}
	res, _ := p.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["mcp__gh__pr","grep"]}`)})
	if !slices.Equal(res.References, []string{"grep", "mcp__gh__pr"}) {
		t.Errorf("references = %v, want grep and mcp__gh__pr", res.References)
	}
	if got := picks.Picked(); !slices.Equal(got, []string{"grep", "mcp__gh__pr"}) {
		t.Errorf("picked %v: in pick mode a pick takes no group along", got)
	}
	var defs []loadedDefinition
	for _, l := range strings.Split(res.Content, "\n")[1:] {
		var d loadedDefinition
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("definition line %q: %v", l, err)
		}
		defs = append(defs, d)
	}
	if len(defs) != 2 || defs[0].Name != "grep" || !strings.Contains(defs[0].Description, "longer description") ||
		!strings.Contains(string(defs[0].Parameters), `"required":["text"]`) {
		t.Errorf("definitions = %+v, want grep's and mcp__gh__pr's in full", defs)
	}
	again, _ := p.Run(context.Background(), tools.Call{Args: json.RawMessage(`{"names":["grep","nope"]}`)})
	if len(again.References) != 0 || !again.IsError || !strings.Contains(again.Content, "Loaded before") ||
		!strings.Contains(again.Content, "Unknown tool names: nope") || strings.Contains(again.Content, "{") {
		t.Errorf("picking grep again and an unknown name: %+v", again)
	}
}

func TestPickModeOffersAPickedToolInFullOnceItsResultIsGone(t *testing.T) {
	c, picks := newPickCatalog(t)
	picks.Pick("grep") // picked, but the result that loaded it was compacted away
	for _, o := range c.Offers(picks.Picked(), nil) {
		if want := o.Name != "grep" && o.Name != PickToolsName; o.Deferred != want {
			t.Errorf("%s deferred = %v, want %v", o.Name, o.Deferred, want)
		}
	}
}

func TestPickModeCallPicksNothingAndItsErrorCarriesTheSchema(t *testing.T) {
	c, picks := newPickCatalog(t)
	if _, _, err := c.Resolve("grep", `{"text":"x"}`, picks); err != nil {
		t.Fatalf("valid call: %v", err)
	}
	if len(picks.Picked()) != 0 {
		t.Errorf("a call picked %v; it would bring the tool into the tools array", picks.Picked())
	}
	picks.Pick("read_file")
	_, _, err := c.Resolve("read_file", `{}`, picks)
	if err == nil || !strings.Contains(err.Error(), `"required":["text"]`) {
		t.Errorf("invalid call of a picked tool: %v, want the schema in the error", err)
	}
}
