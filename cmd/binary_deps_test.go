package cmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoMethodLookupByNameLinked checks that the agent as the README and
// goreleaser build it (-tags grpcnotrace) links neither html/template nor
// golang.org/x/net/trace (whose init executes an html/template): a
// template's method call by name makes the linker keep every exported
// method of every linked type, 20 MB of the binary (BENCHMARKS.md, "The
// binary and package init"). .ci/run checks the size itself.
func TestNoMethodLookupByNameLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags", "grpcnotrace", "github.com/agent-dev/agent").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		if d == "html/template" || d == "golang.org/x/net/trace" {
			t.Errorf("the agent links %s", d)
		}
	}
}
