package sandbox

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// What Go programs print when the sandbox refuses them is lower case
// ("open /x: read-only file system"): the model is told as it is for the C
// library's words, and pointed at writable_roots.
func TestARefusalInGosWordsIsExplainedToo(t *testing.T) {
	for _, out := range []string{
		"go: creating work dir: mkdir /root/.cache/go-build/ab: read-only file system",
		"touch: cannot touch '/x': Read-only file system",
		"dial tcp 1.2.3.4:443: connect: network is unreachable",
	} {
		res := tools.Result{Content: out, IsError: true, Meta: map[string]any{tools.MetaExitCode: 1}}
		note := refusal(res, Status{})
		if !strings.Contains(note, "tell the user") || !strings.Contains(note, "writable_roots") {
			t.Errorf("%q: note %q", out, note)
		}
	}
	if note := refusal(tools.Result{Content: "all good", Meta: map[string]any{tools.MetaExitCode: 0}}, Status{}); note != "" {
		t.Errorf("a command that worked got %q", note)
	}
}
