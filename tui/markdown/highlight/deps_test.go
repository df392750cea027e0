package highlight

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoRegistriesLinked checks that the agent's binary (the module's main package, which links this one) links none
// of the chroma packages whose init builds registries (lexers, styles, formatters, quick), nor glamour: their package
// init ran on every start, --version and --help included.
func TestNoRegistriesLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/agent-dev/agent").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	sawCore := false
	for _, d := range deps {
		switch {
		case d == "github.com/alecthomas/chroma/v2":
			sawCore = true
		case strings.HasPrefix(d, "github.com/alecthomas/chroma/v2/"), strings.Contains(d, "glamour"):
			t.Errorf("the agent links %s", d)
		}
	}
	if !sawCore {
		t.Errorf("chroma's core package is not among the dependencies: %q", deps)
	}
}
