package picker

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

func TestLiveSwapsCatalogs(t *testing.T) {
	reg, _ := tools.NewRegistry()
	a, b := New(reg, ModeSwap), New(reg, ModeAll)
	if a.Current() != a {
		t.Fatal("a Catalog is its own source")
	}
	l := NewLive(a)
	if l.Current() != a {
		t.Fatal("NewLive: wrong catalog")
	}
	l.Set(b)
	if l.Current() != b {
		t.Fatal("Set: wrong catalog")
	}
}

func TestWithIndex(t *testing.T) {
	reg, err := tools.NewRegistry(echoTool{"read"}, echoTool{"mcp__s__a"}, echoTool{"mcp__s__b"})
	if err != nil {
		t.Fatal(err)
	}
	c := New(reg, ModeSwap, []string{"read"}).WithIndex("mcp__s__a", "mcp__s__b")
	offers := c.Offers(nil, nil)
	if len(offers) != 2 || offers[1].Name != "read" || !strings.HasSuffix(offers[0].Description, "\nmcp__s__: a, b") {
		t.Fatalf("offers %+v", offers)
	}
	picks := &set{}
	if _, _, err := c.Resolve("mcp__s__b", `{"text":"x"}`, picks); err != nil {
		t.Fatal(err)
	}
	offers = c.Offers(picks.Picked(), nil)
	if !strings.HasSuffix(offers[0].Description, "\nmcp__s__: a") || offers[len(offers)-1].Name != "read" || offers[1].Name != "mcp__s__b" || offers[1].Schema == nil {
		t.Fatalf("after a pick: %+v", offers)
	}
}
