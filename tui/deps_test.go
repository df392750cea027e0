package tui

import (
	"os/exec"
	"strings"
	"testing"
)

// The front-ends (the interface, ACP, the SDK's protocol) know no concrete
// tool: what a tool shows reaches them as tools' and loop's types, so a
// new tool adds no import to them. Of the tools' packages they reach only
// tools and, through loop, tools/picker.
func TestFrontEndsKnowNoConcreteTool(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	const mod = "github.com/agent-dev/agent/"
	out, err := exec.Command(goTool, "list", "-deps", mod+"tui", mod+"acp", mod+"sdkstream").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(d, mod)
		if !ok {
			continue
		}
		switch {
		case rel == "subagent", rel == "memory", rel == "skills", rel == "hooks", rel == "commands",
			strings.HasPrefix(rel, "tools/") && rel != "tools/picker":
			t.Errorf("a front-end imports %s", d)
		}
	}
}
