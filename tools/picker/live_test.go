package picker

import (
	"testing"

	"github.com/agent-dev/agent/tools"
)

func TestLiveSwapsCatalogs(t *testing.T) {
	reg, _ := tools.NewRegistry()
	a, b := New(reg, ModePick), New(reg, ModeAll)
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
