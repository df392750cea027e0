package host_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

// isChild tells a child's request from the parent's.
func isChild(req providers.Request) bool { return strings.Contains(req.System, "You are a subagent") }

// offered are the names of the tools req offers, pick_tools left out.
func offered(req providers.Request) []string {
	var out []string
	for _, d := range req.Tools {
		if d.Name != "pick_tools" {
			out = append(out, d.Name)
		}
	}
	slices.Sort(out)
	return out
}

// delegate is a model whose parent calls the task tool once with agent
// name, whose child answers its first request with child (given the
// request) and then "done", and whose parent then ends.
func delegate(name string, child func(providers.Request) fake.Reply) *fake.Provider {
	return fake.NewFunc(func(req providers.Request) fake.Reply {
		answered := len(toolResults(req)) > 0
		switch {
		case !isChild(req) && !answered:
			return fake.ToolCalls(call("task-1", "task", `{"description":"the work","prompt":"do it","agent":"`+name+`"}`))
		case isChild(req) && !answered:
			return child(req)
		case isChild(req):
			return fake.Text("done")
		}
		return fake.Text("finished")
	})
}

// commitCmd commits a new file with git, as an agent that handles a
// repository's git work does.
const commitCmd = `{"command":"echo x > x.txt && git add x.txt && git -c user.name=T -c user.email=t@example.com commit -qm 'add x' && echo committed"}`

// githubWorkflow is a published agent with no tools field, in a
// sub-folder, whose description is a block scalar.
const githubWorkflow = "---\nname: github-workflow\ndescription: >\n  Handles git work: branches,\n  commits and pull requests.\n---\nYou handle the repository's git work.\n"

// An agent whose definition has no tools field gets the parent's tools
// (Claude Code gives it every tool): it runs bash and commits, through
// the session's approval, which asks the front-end about the child's call.
func TestAgentWithoutToolsCommitsUnderTheSessionsApprovals(t *testing.T) {
	model := delegate("github-workflow", func(req providers.Request) fake.Reply {
		if tools := offered(req); !slices.Contains(tools, "bash") || slices.Contains(tools, "task") || slices.Contains(tools, "exit_plan_mode") {
			return fake.Text("my tools: " + strings.Join(tools, ", "))
		}
		return fake.ToolCalls(call("b1", "bash", commitCmd))
	})
	f := repoFixture(t, model)
	write(t, f.path(".claude/agents/git/github-workflow.md"), githubWorkflow)
	gitIn(t, f.dir, "add", ".")
	gitIn(t, f.dir, "commit", "-q", "-m", "agents")
	a := &asker{answer: loop.Decision{Allow: true, Why: "person: allowed once"}}
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAsk, Asker: a})
	r := runTurn(t, s, "commit x")
	if res := r.result(t, "task-1"); res.IsError || !strings.Contains(res.Content, "done") {
		t.Fatalf("the task's result: %s", res.Content)
	}
	if log := gitIn(t, f.dir, "log", "--format=%s"); !strings.HasPrefix(log, "add x\n") {
		t.Errorf("git log:\n%s\nwant the child's commit on top", log)
	}
	qs := a.questions()
	if len(qs) != 1 || qs[0].Req.Call.ID != "b1" || qs[0].Req.Origin.ParentCallID != "task-1" {
		t.Errorf("questions %+v, want the child's bash call asked of the front-end", qs)
	}
	for _, w := range s.Warnings() {
		if strings.Contains(w, "github-workflow") {
			t.Errorf("a warning about a definition that asks nothing unsupported: %s", w)
		}
	}
}

// In plan mode the same agent is read-only: its commit is refused and
// nothing is committed.
func TestAgentWithoutToolsIsReadOnlyInPlanMode(t *testing.T) {
	model := delegate("github-workflow", func(providers.Request) fake.Reply { return fake.ToolCalls(call("b1", "bash", commitCmd)) })
	f := repoFixture(t, model)
	write(t, f.path(".claude/agents/git/github-workflow.md"), githubWorkflow)
	before := gitIn(t, f.dir, "rev-parse", "HEAD")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModePlan, Asker: &asker{answer: loop.Decision{Allow: true, Why: "person: allowed once"}}})
	runTurn(t, s, "commit x")
	if after := gitIn(t, f.dir, "rev-parse", "HEAD"); after != before || exists(f.path("x.txt")) {
		t.Errorf("plan mode: the child committed or wrote (HEAD %s, was %s)", after, before)
	}
	var childResult string
	for _, req := range model.Requests() {
		if isChild(req) {
			if r, ok := toolResults(req)["b1"]; ok {
				childResult = r.Content
			}
		}
	}
	if !strings.Contains(childResult, "plan mode") {
		t.Errorf("the child's bash result %q, want plan mode's refusal", childResult)
	}
}

// tools: Read, WebSearch, Bash(git log:*): WebSearch has no counterpart,
// so the agent starts with read_file and bash, and one warning names
// WebSearch and the rule that is not enforced.
func TestAgentToolsWithoutCounterpartStartWithTheRest(t *testing.T) {
	var got []string
	model := delegate("researcher", func(req providers.Request) fake.Reply {
		got = offered(req)
		return fake.Text("started")
	})
	f := newFixture(t, model, "")
	write(t, f.path(".claude/agents/research/researcher.md"),
		"---\nname: researcher\ndescription: Use when: you need facts from the web\ntools: Read, WebSearch, Bash(git log:*)\n---\nYou research.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	r := runTurn(t, s, "research")
	if res := r.result(t, "task-1"); res.IsError {
		t.Fatalf("the task failed: %s", res.Content)
	}
	if !slices.Equal(got, []string{"bash", "read_file"}) {
		t.Errorf("the child was offered %q, want read_file and bash", got)
	}
	var warned []string
	for _, w := range s.Warnings() {
		if strings.Contains(w, "researcher") {
			warned = append(warned, w)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "WebSearch") || !strings.Contains(warned[0], "Bash(git log:*)") {
		t.Errorf("warnings %q, want one naming WebSearch and the rule", warned)
	}
}

// permissionMode: plan makes the child read-only in an auto session; a
// definition's bypassPermissions never widens an ask session: its write is
// asked, and refused with the person's no.
func TestAgentPermissionModeNeverWidens(t *testing.T) {
	write1 := `{"path":"out.txt","content":"x\n"}`
	for _, c := range []struct {
		mode, session string
		ask           bool
	}{{"plan", host.ModeAuto, false}, {"bypassPermissions", host.ModeAsk, true}} {
		t.Run(c.mode, func(t *testing.T) {
			model := delegate("writer", func(providers.Request) fake.Reply { return fake.ToolCalls(call("w1", "write_file", write1)) })
			f := newFixture(t, model, "")
			write(t, f.path(".claude/agents/writer.md"), "---\nname: writer\ndescription: Writes.\npermissionMode: "+c.mode+"\n---\nYou write.\n")
			a := &asker{answer: loop.Decision{Reason: "no", Why: "person: denied"}}
			s := f.open(t, host.Request{}, host.FrontEnd{Mode: c.session, Asker: a})
			runTurn(t, s, "write")
			if exists(f.path("out.txt")) {
				t.Error("the child wrote out.txt")
			}
			if asked := len(a.questions()) > 0; asked != c.ask {
				t.Errorf("asked %v, want %v", asked, c.ask)
			}
		})
	}
}

// model: sonnet runs on model_aliases' model; without an entry, an
// OpenAI-protocol session's model answers and the result says so.
func TestAgentModelAliases(t *testing.T) {
	for _, c := range []struct {
		config, want string
		note         bool
	}{{"model_aliases = { sonnet = \"small-model\" }\n", "small-model", false}, {"", "m", true}} {
		var childModel string
		model := delegate("quick", func(req providers.Request) fake.Reply {
			childModel = req.Model
			return fake.Text("hi")
		})
		f := newFixture(t, model, c.config)
		write(t, f.path(".claude/agents/quick.md"), "---\nname: quick\ndescription: Quick answers.\nmodel: sonnet\n---\nBe quick.\n")
		s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
		res := runTurn(t, s, "go").result(t, "task-1")
		if childModel != c.want || strings.Contains(res.Content, "an alias of Claude Code's") != c.note {
			t.Errorf("config %q: the child ran on %q (want %q); result %q", c.config, childModel, c.want, res.Content)
		}
	}
}

// A model the provider refuses is named with the definition in the
// task's result, not only the API's error.
func TestAgentModelRefusedIsNamed(t *testing.T) {
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		switch {
		case req.Model == "claude-opus-9":
			return fake.Error(&providers.APIError{StatusCode: 404, Message: "model: claude-opus-9 not found"})
		case len(toolResults(req)) == 0:
			return fake.ToolCalls(call("task-1", "task", `{"description":"deep work","prompt":"think","agent":"Deep.Thinker"}`))
		}
		return fake.Text("ok")
	})
	f := newFixture(t, model, "model_aliases = { opus = \"claude-opus-9\" }\n")
	write(t, f.path(".claude/agents/deep.md"), "---\nname: Deep.Thinker\ndescription: Thinks deeply.\nmodel: opus\n---\nThink.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	res := runTurn(t, s, "go").result(t, "task-1")
	if !res.IsError || !strings.Contains(res.Content, `The model "claude-opus-9" (model: opus in agent Deep.Thinker's definition`) || !strings.Contains(res.Content, "deep.md") {
		t.Errorf("the result: %s", res.Content)
	}
}

// maxTurns caps the child's steps; skills are preloaded into its system
// prompt, and its skill tool offers them alone.
func TestAgentMaxTurnsAndSkills(t *testing.T) {
	var system string
	model := fake.NewFunc(func(req providers.Request) fake.Reply {
		if !isChild(req) {
			if len(toolResults(req)) == 0 {
				return fake.ToolCalls(call("task-1", "task", `{"description":"look","prompt":"look around","agent":"looker"}`))
			}
			return fake.Text("finished")
		}
		system = req.System
		return fake.ToolCalls(call("l"+string(rune('0'+len(req.Messages))), "list_files", `{}`)) // never answers
	})
	f := newFixture(t, model, "")
	write(t, f.path(".claude/skills/conventions/SKILL.md"), "---\ndescription: Naming conventions\nuser-invocable: false\n---\nNAME-RULE: packages are lower case.\n")
	write(t, f.path(".claude/agents/looker.md"), "---\nname: looker\ndescription: Looks.\ntools: Glob, Skill\nmaxTurns: 2\nskills:\n  - conventions\n  - missing-skill\n---\nYou look.\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	res := runTurn(t, s, "go").result(t, "task-1")
	if !strings.Contains(res.Content, "step limit") || !strings.Contains(res.Content, ": 2 steps") {
		t.Errorf("the result: %s", res.Content)
	}
	if !strings.Contains(system, "NAME-RULE: packages are lower case.") {
		t.Errorf("the child's system prompt lacks the preloaded skill:\n%s", system)
	}
	warned := strings.Join(s.Warnings(), "\n")
	if !strings.Contains(warned, "skills: missing-skill is no skill here") {
		t.Errorf("warnings %q", warned)
	}
}

// agent doctor's list of the built-in tools is the sessions' (agent
// definitions are checked against it without a session).
func TestBuiltinToolNames(t *testing.T) {
	f := newFixture(t, fake.New(), "")
	write(t, f.path(".claude/skills/x/SKILL.md"), "---\ndescription: x\n---\nx\n")
	s := f.open(t, host.Request{}, host.FrontEnd{Mode: host.ModeAuto})
	for _, n := range s.ToolNames() {
		if n != "task" && n != "exit_plan_mode" && n != "pick_tools" && !slices.Contains(host.BuiltinToolNames, n) {
			t.Errorf("the session's tool %s is not in builtinToolNames %q", n, host.BuiltinToolNames)
		}
	}
}

// agent doctor lists the agents it found, from sub-folders too, each with
// its file, and what of each it cannot honour.
func TestDoctorListsAgents(t *testing.T) {
	f := newFixture(t, fake.New(), "")
	write(t, f.path(".claude/agents/git/github-workflow.md"), githubWorkflow)
	write(t, f.path(".claude/agents/researcher.md"), "---\nname: researcher\ndescription: Researches.\ntools: Read, WebSearch\nhooks:\n  Stop: []\n---\nx\n")
	var out []string
	f.h.PrintExtensions(func(key, format string, args ...any) {
		out = append(out, key+": "+strings.TrimSpace(fmt.Sprintf(format, args...)))
	}, f.dir)
	text := strings.Join(out, "\n")
	for _, want := range []string{"agents: 2", "github-workflow  " + f.path(".claude/agents/git/github-workflow.md"),
		"agent definition researcher", "field hooks not supported", "tools WebSearch have no counterpart here: it starts with read_file"} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor's lines lack %q:\n%s", want, text)
		}
	}
}
