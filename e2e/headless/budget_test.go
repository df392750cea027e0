package headless

import (
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// firstRequestGoal is issue 43's goal for the first request of "hi" in pick
// mode, bytes, with a working directory of refDirLen bytes (the system prompt
// names it): a tenth of the leanest peer's (opencode, 30,705 bytes).
const (
	firstRequestGoal = 3070
	refDirLen        = 36 // len("/tmp/TestRequestBudget3817604248/001")
)

// TestRequestBudget measures the first request of a one-word prompt in pick
// and all mode and holds the goals: pick mode's tool definitions at most 25%
// of all mode's, and pick mode's whole first request at most
// firstRequestGoal bytes (counted as if its working directory's path were
// refDirLen bytes long). Run it with -v to see the figures (BENCHMARKS.md
// records them). Tokens are estimated as bytes/4.
func TestRequestBudget(t *testing.T) {
	t.Parallel()
	type figures struct{ body, tools int }
	dirLen := 0
	measure := func(mode string) figures {
		srv := scripted.New(t, scripted.Text("hello"))
		dir := e2e.SourceTree(t)
		dirLen = len(dir)
		res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "--tools", mode, "hi")})
		if res.Code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, res.Code, res.Stderr)
		}
		req := srv.Requests()[0]
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		return figures{len(req.Body), len(body.Tools)}
	}
	pick, all := measure("pick"), measure("all")
	t.Logf("first request for \"hi\": pick mode %d bytes (~%d tokens), all mode %d bytes (~%d tokens)",
		pick.body, pick.body/4, all.body, all.body/4)
	t.Logf("tool definitions: pick mode %d bytes (~%d tokens), all mode %d bytes (~%d tokens): %.1f%%",
		pick.tools, pick.tools/4, all.tools, all.tools/4, 100*float64(pick.tools)/float64(all.tools))
	if pick.tools*4 > all.tools {
		t.Errorf("pick mode's tool definitions are %d bytes, more than 25%% of all mode's %d", pick.tools, all.tools)
	}
	if n := pick.body - dirLen + refDirLen; n > firstRequestGoal {
		t.Errorf("the first request is %d bytes with a working directory of %d bytes, the goal is %d (issue 43: shorten the briefs in pick_tools' index)",
			n, refDirLen, firstRequestGoal)
	}
}
