//go:build linux

package sessions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// reader is a scripted model for long sessions: asked without tools it
// writes a summary that counts the reads it summarises; otherwise it reads
// big.txt until it has read it reads times in all, then answers.
func reader(reads int) func(scripted.ChatRequest) scripted.Reply {
	return func(c scripted.ChatRequest) scripted.Reply {
		seen := 0
		for _, m := range c.Messages {
			if m.Role == "tool" && strings.Contains(m.Text(), "line 1") {
				seen++
			}
			var earlier int
			if _, after, ok := strings.Cut(m.Text(), "Reads so far:"); ok {
				if _, err := fmt.Sscanf(after, "%d", &earlier); err == nil {
					seen += earlier
				}
			}
		}
		if !c.MayCallTools() {
			return scripted.Text(fmt.Sprintf("Goal: read big.txt often. Reads so far: %d. Next step: read it again.", seen))
		}
		last := c.Messages[len(c.Messages)-1]
		if seen >= reads || (last.Role == "user" && strings.Contains(last.Text(), "how many")) {
			return scripted.Text(fmt.Sprintf("Read it %d times.", seen))
		}
		return scripted.ToolCalls(scripted.Call{ID: fmt.Sprintf("r%d-%d", seen, len(c.Messages)), Name: "read_file", Arguments: `{"path":"big.txt"}`})
	}
}

// longSessionDir is a working directory with a 4 KB file and a config that
// gives the model a 9,000-token window (8,000 before task, todo_write and exit_plan_mode joined the tools).
func longSessionDir(t *testing.T) (dir, config string) {
	dir = t.TempDir()
	var b strings.Builder
	for i := 1; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "line %d of a file that fills the context window quickly\n", i)
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644)
	config = filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte("context_window = 9000\n"), 0o644)
	return dir, config
}

func TestATurnThatOutgrowsTheWindowCompactsInTheMiddleAndAnswers(t *testing.T) {
	t.Parallel()
	dir, config := longSessionDir(t)
	db := filepath.Join(t.TempDir(), "agent.db")
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: reader(8), MeasureUsage: true})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--config", config, "--max-steps", "30",
		"-p", "--output-format", "stream-json", "read big.txt eight times")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	var compactions []map[string]any
	for _, o := range objs {
		if o["type"] == "compaction" {
			compactions = append(compactions, o)
		}
	}
	last := objs[len(objs)-1]
	if last["type"] != "result" || last["answer"] != "Read it 8 times." || last["stop_reason"] != "answered" {
		t.Errorf("result %v", last)
	}
	if len(compactions) == 0 {
		t.Fatalf("no compaction event in:\n%s", res.Stdout)
	}
	for _, c := range compactions {
		before, after := c["before_tokens"].(float64), c["after_tokens"].(float64)
		if after >= before || !strings.Contains(c["summary"].(string), "Reads so far") {
			t.Errorf("compaction event %v", c)
		}
	}
	reqs := srv.Requests()
	for i, r := range reqs {
		if n := scripted.MeasurePrompt(r.Body); n > 8000 {
			t.Errorf("request %d carries %d tokens, over the 8,000-token window", i+1, n)
		}
	}
	e2e.AssertCallsAnswered(t, reqs)

	// -c goes on from the summary: the compacted messages are not sent again.
	next := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "--config", config, "-c", "-p", "how many times?")})
	if next.Code != 0 || next.Stdout != "Read it 8 times.\n" {
		t.Fatalf("continue: exit %d, stdout %q, stderr %s", next.Code, next.Stdout, next.Stderr)
	}
	cont := srv.Requests()[len(reqs)]
	if first := cont.Chat.Messages[1].Text(); cont.Chat.Messages[1].Role != "user" || !strings.Contains(first, "compacted") {
		t.Errorf("the continued request does not start with the summary: %q", first)
	}
	for _, m := range cont.Chat.Messages {
		if m.Text() == "read big.txt eight times" {
			t.Errorf("the continued request re-sends the compacted prompt")
		}
	}

	// show still has the whole history.
	show := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "show", sessionOf(t, objs)}})
	if show.Code != 0 || !strings.Contains(show.Stdout, "read big.txt eight times") || !strings.Contains(show.Stdout, "compacted") {
		t.Errorf("sessions show lacks the original prompt or the compaction:\n%s", show.Stdout)
	}
	export := e2e.Run(t, e2e.Invocation{Dir: dir, Args: []string{"--db", db, "sessions", "export", sessionOf(t, objs)}})
	var exp struct {
		Messages    []json.RawMessage `json:"messages"`
		Compactions []struct {
			FirstSeq int    `json:"first_seq"`
			Summary  string `json:"summary"`
		} `json:"compactions"`
	}
	if err := json.Unmarshal([]byte(export.Stdout), &exp); err != nil || len(exp.Compactions) != len(compactions) ||
		exp.Compactions[0].FirstSeq < 2 || exp.Compactions[0].Summary == "" {
		t.Errorf("export: %d compactions (want %d), %v", len(exp.Compactions), len(compactions), err)
	}
}

func sessionOf(t *testing.T, objs []map[string]any) string {
	t.Helper()
	id, _ := objs[0]["session_id"].(string)
	if id == "" {
		t.Fatalf("no session id in %v", objs[0])
	}
	return id
}

// Picks last for the session: a continued run offers what the first picked,
// and its first request's tools are byte-identical to the last request of
// the run before, so a provider's prompt cache stays warm.
func TestPicksAreKeptAcrossContinue(t *testing.T) {
	t.Parallel()
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "agent.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["grep"]}`}),
		scripted.ToolCalls(scripted.Call{ID: "g", Name: "grep", Arguments: `{"pattern":"alpha"}`}),
		scripted.Text("Found alpha in a.txt."),
		scripted.Text("Still there."),
	)
	first := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-p", "find alpha")})
	if first.Code != 0 {
		t.Fatalf("first run: exit %d: %s", first.Code, first.Stderr)
	}
	second := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", db, "-c", "-p", "still?")})
	if second.Code != 0 {
		t.Fatalf("continue: exit %d: %s", second.Code, second.Stderr)
	}
	reqs := srv.Requests()
	tools := func(r scripted.Request) string {
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		json.Unmarshal(r.Body, &body)
		return string(body.Tools)
	}
	if !strings.Contains(e2e.ToolResults(reqs[3])["p"], `{"name":"grep"`) {
		t.Errorf("the continued run does not carry grep's definition, loaded by the pick in the first run")
	}
	if tools(reqs[2]) != tools(reqs[3]) {
		t.Errorf("the continued run's tools differ from the last request before it")
	}
	before, _ := json.Marshal(reqs[2].Chat.Messages)
	after, _ := json.Marshal(reqs[3].Chat.Messages)
	if !strings.HasPrefix(string(after), strings.TrimSuffix(string(before), "]")) {
		t.Errorf("the continued request's messages do not begin with the last request's")
	}
}

func TestAResponseCutByTheOutputLimitExitsWith1(t *testing.T) {
	t.Parallel()
	cut := scripted.Text("A very long answer that the output limit cuts")
	cut.Finish = "length"
	srv := scripted.New(t, cut, cut, cut)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "--output-format", "json", "write a novel")})
	if res.Code != 1 {
		t.Fatalf("exit %d, want 1: %s", res.Code, res.Stderr)
	}
	var out struct {
		StopReason string `json:"stop_reason"`
		Answer     string `json:"answer"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.StopReason != "max_tokens" || !strings.Contains(out.Answer, "output limit") {
		t.Errorf("result %q (%v)", res.Stdout, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(e2e.LastUserText(reqs[1]), "cut off") {
		t.Errorf("%d requests; the second should ask to continue: %q", len(reqs), e2e.LastUserText(reqs[1]))
	}
}

// A 300-step turn in a 16,000-token window: it compacts as often as it
// must, finishes with its answer, and never sends a request over the
// window. (bench/long_session_bench_test.go measures its time per step and
// memory.)
func TestThreeHundredStepsInASixteenThousandTokenWindow(t *testing.T) {
	t.Parallel()
	dir, _ := longSessionDir(t)
	config := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte("context_window = 16000\n"), 0o644)
	srv := scripted.NewWithOptions(t, scripted.Options{Respond: reader(299), MeasureUsage: true, DiscardRequests: false})
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "--config", config,
		"--max-steps", "300", "-p", "--output-format", "json", "read big.txt 299 times")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var out struct {
		Answer string `json:"answer"`
		Steps  int    `json:"steps"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.Answer != "Read it 299 times." || out.Steps != 300 {
		t.Fatalf("result %q (%v)", res.Stdout, err)
	}
	reqs := srv.Requests()
	summaries, largest := 0, 0
	for i, r := range reqs {
		n := scripted.MeasurePrompt(r.Body)
		largest = max(largest, n)
		if n > 16000 {
			t.Errorf("request %d carries %d tokens, over the window", i+1, n)
		}
		if !r.Chat.MayCallTools() {
			summaries++
		}
	}
	e2e.AssertCallsAnswered(t, reqs)
	t.Logf("%d requests, %d of them summaries; the largest carried %d tokens", len(reqs), summaries, largest)
	if summaries < 10 {
		t.Errorf("only %d compactions in 300 steps of 1,000-token reads in a 16,000-token window", summaries)
	}
}

// A headless answer that the output limit cut and the model continued is
// printed whole.
func TestAContinuedAnswerIsPrintedWhole(t *testing.T) {
	t.Parallel()
	cut := scripted.Text("FIRST HALF of the list, ")
	cut.Finish = "length"
	srv := scripted.New(t, cut, scripted.Text("SECOND HALF of them."))
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Args: e2e.AgentArgs(srv, "-p", "list them all")})
	if res.Code != 0 || res.Stdout != "FIRST HALF of the list, SECOND HALF of them.\n" {
		t.Errorf("exit %d, stdout %q, stderr %s", res.Code, res.Stdout, res.Stderr)
	}
}
