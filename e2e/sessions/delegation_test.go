package sessions

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// researchFunctions are the five functions of this repository the
// research task asks about.
var researchFunctions = []string{"usagef", "sessionError", "newProvider", "readableJSON", "TitleFromPrompt"}

// researchSteps are the calls that research one function: a grep for its
// calls, then the first two files it names read whole.
const researchSteps = 3

// researchCall is the next call researching fn after done of its steps,
// given the grep's output (nil for the grep itself); ok false when done.
func researchCall(fn string, done int, grepOut string, id string) (scripted.Call, bool) {
	if done == 0 {
		args, _ := json.Marshal(map[string]string{"pattern": fn + `\(`, "glob": "*.go"})
		return scripted.Call{ID: id, Name: "grep", Arguments: string(args)}, true
	}
	files := grepFiles(grepOut)
	if done >= researchSteps || done-1 >= len(files) {
		return scripted.Call{}, false
	}
	args, _ := json.Marshal(map[string]string{"path": files[done-1]})
	return scripted.Call{ID: id, Name: "read_file", Arguments: string(args)}, true
}

// grepFiles are the distinct files of grep's path:line:text output.
func grepFiles(out string) []string {
	var files []string
	for _, line := range strings.Split(out, "\n") {
		path, _, ok := strings.Cut(line, ":")
		if ok && strings.HasSuffix(path, ".go") && !slices.Contains(files, path) {
			files = append(files, path)
		}
	}
	return files
}

// researchAnswer is what the model says of fn after its grep: its first
// fifteen uses.
func researchAnswer(fn, grepOut string) string {
	lines := strings.Split(strings.TrimSpace(grepOut), "\n")
	lines = lines[:min(len(lines), 15)]
	var b strings.Builder
	fmt.Fprintf(&b, "%s is used at:\n", fn)
	for _, l := range lines {
		if path, rest, ok := strings.Cut(l, ":"); ok {
			lineNo, _, _ := strings.Cut(rest, ":")
			fmt.Fprintf(&b, "- %s:%s\n", path, lineNo)
		}
	}
	return b.String()
}

// researchModel plays the research task. In the main loop it researches
// the five functions one after the other in one conversation; delegating,
// the parent starts one subagent per function in one step, and each child
// researches its function.
func researchModel(delegate bool) func(scripted.ChatRequest) scripted.Reply {
	return func(c scripted.ChatRequest) scripted.Reply {
		outs := e2e.ToolOutputs(c)
		id := fmt.Sprintf("c%d", len(c.Messages))
		switch {
		case e2e.IsChild(c):
			fn := strings.Fields(childPrompt(c))[2] // "Find where FN is used"
			grep := ""
			if len(outs) > 0 {
				grep = outs[0]
			}
			if call, ok := researchCall(fn, len(outs), grep, id); ok {
				return scripted.ToolCalls(call)
			}
			return scripted.Text(researchAnswer(fn, grep))
		case delegate && len(outs) == 0:
			var calls []scripted.Call
			for i, fn := range researchFunctions {
				calls = append(calls, e2e.TaskCall(fmt.Sprintf("task%d", i), "uses of "+fn,
					"Find where "+fn+" is used in this repository (Go files): list each call as path:line."))
			}
			return scripted.ToolCalls(calls...)
		case delegate:
			return scripted.Text(strings.Join(outs, "\n"))
		}
		// The main loop: each function's calls in turn, in one conversation.
		var answer strings.Builder
		k := 0
		for _, fn := range researchFunctions {
			grep := ""
			if k < len(outs) {
				grep = outs[k]
			}
			done := 0
			for done < len(outs)-k {
				if _, ok := researchCall(fn, done, grep, id); !ok {
					break
				}
				done++
			}
			if call, ok := researchCall(fn, done, grep, id); ok {
				return scripted.ToolCalls(call)
			}
			answer.WriteString(researchAnswer(fn, grep))
			k += done
		}
		return scripted.Text(answer.String())
	}
}

// research is what one run of the research task cost: the parent's
// context at its last request and billable tokens over every request, each
// conversation's prompt cache measured against its own previous request.
type research struct {
	requests, parentContext, billable, input int
}

func runResearch(t *testing.T, delegate bool) research {
	dir, db := e2e.SourceTree(t), filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: researchModel(delegate)})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--tools", "all", "--max-steps", "40",
		"-p", "Find where each of "+strings.Join(researchFunctions, ", ")+" is used.")})
	if res.Code != 0 || !strings.Contains(res.Stdout, "TitleFromPrompt is used at:") {
		t.Fatalf("delegate %v: exit %d, stdout %q, stderr %s", delegate, res.Code, res.Stdout, res.Stderr)
	}
	var r research
	prev := map[string][]byte{} // each conversation's previous request, by its first user message
	for _, req := range srv.Requests() {
		key := childPrompt(req.Chat)
		cur := scripted.ProviderOrder(req.Chat)
		in, cached := scripted.MeasurePrompt(req.Body), scripted.MeasureCached(prev[key], cur)
		prev[key] = cur
		r.requests++
		r.input += in
		r.billable += in - cached + cached/10
		if !e2e.IsChild(req.Chat) {
			r.parentContext = in
		}
	}
	return r
}

// TestResearchDelegatedToSubagents measures one research task (where each
// of five functions of this repository is used) done in the main loop and
// with five subagents: the parent's context at its last request, and the
// billable input tokens of every request (cache reads at a tenth). Goal:
// the parent's context at most a third of the main loop's. bench/delegation.sh
// prints the figures.
func TestResearchDelegatedToSubagents(t *testing.T) {
	t.Parallel()
	main, sub := runResearch(t, false), runResearch(t, true)
	for _, c := range []struct {
		name string
		r    research
	}{{"main loop", main}, {"5 subagents", sub}} {
		t.Logf("research, %-11s: %3d requests, parent's context %6d tokens, input %7d tokens, billable %7d tokens",
			c.name, c.r.requests, c.r.parentContext, c.r.input, c.r.billable)
	}
	if sub.parentContext*3 > main.parentContext {
		t.Errorf("the parent's context with subagents (%d tokens) is over a third of the main loop's (%d)", sub.parentContext, main.parentContext)
	}
}
