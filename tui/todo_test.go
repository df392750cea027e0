package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tools/todo"
)

// withTools makes cfg's session loop offer ts, every call allowed but the
// ones its approver asks about.
func withTools(t *testing.T, cfg *Config, srv *fake.Provider, ts ...tools.Tool) {
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Session.NewLoop = func(model string) (*loop.Loop, error) {
		return loop.New(loop.Config{Provider: srv, Model: model, Catalog: picker.New(reg, picker.ModeAll, reg.Names())})
	}
}

var todoItems = []tools.Todo{{Content: "Read the loader", Status: tools.TodoCompleted},
	{Content: "Fix the off-by-one in the cache", Status: tools.TodoInProgress}, {Content: "Add a test", Status: tools.TodoPending}}

// The pinned list, shown and folded, as a person sees it.
func TestTodoPinGolden(t *testing.T) {
	p := todoPin{st: goldenStyles(), items: todoItems}
	requireGolden(t, "todo_pin_60", p.Render(60))
	p.folded = true
	requireGolden(t, "todo_pin_folded_60", p.Render(60))
	p.items = []tools.Todo{{Content: "done", Status: tools.TodoCompleted}}
	if p.Render(60) != "" {
		t.Error("a list with every item done is still pinned")
	}
}

// A todo_write call pins its list above the input; Ctrl+T folds it.
func TestTodoListPinnedAboveTheInput(t *testing.T) {
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "t1", Name: "todo_write", Arguments: `{"todos":[{"content":"Read the loader","status":"completed"},` +
			`{"content":"Fix the cache","status":"in_progress"},{"content":"Add a test","status":"pending"}]}`}),
		fake.Text("Working on it."),
	)
	cfg := config(t, srv, t.TempDir(), nil)
	withTools(t, &cfg, srv, todo.New(nil))
	d := newDriver(t, cfg)
	d.typeAndSend("fix the cache")
	d.untilShows("Working on it.")
	s := d.screen()
	if !strings.Contains(s, "Todo 1/3 done (ctrl+t folds)") || !strings.Contains(s, "▸ Fix the cache") || !strings.Contains(s, "☐ Add a test") {
		t.Fatalf("the list is not pinned:\n%s", s)
	}
	d.update(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	if s := d.screen(); !strings.Contains(s, "Todo 1/3 done · now: Fix the cache (ctrl+t shows)") || strings.Contains(s, "☐ Add a test") {
		t.Errorf("Ctrl+T does not fold the list:\n%s", s)
	}
}

// exit_plan_mode asks in the interface; approving it in auto mode ends
// plan mode and the status line shows auto.
func TestPlanApprovedInTheInterface(t *testing.T) {
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "p1", Name: plan.Name, Arguments: `{"plan":"1. Change the loader"}`}),
		fake.Text("Done."),
	)
	approver := NewApprover()
	cfg := config(t, srv, t.TempDir(), approver)
	cfg.PermissionMode = "plan"
	var set []string
	cfg.SetPermissionMode = func(m string) { set = append(set, m) }
	withTools(t, &cfg, srv, plan.New(plan.Config{Active: func() bool { return true },
		Decide: func(ctx context.Context, id, text string) (plan.Outcome, error) {
			d := approver.Ask(ctx, Question{Call: providers.ToolCall{ID: id, Name: plan.Name}, Plan: true, Summary: tools.Summary{Title: "the plan", Full: text}})
			return plan.Outcome{Approved: d.Allow, Mode: map[bool]string{true: "auto", false: "ask"}[d.Why == WhyPlanAuto], Feedback: d.Reason}, nil
		}}))
	d := newDriver(t, cfg)
	if !strings.Contains(d.screen(), "plan mode") {
		t.Fatalf("the status line does not show plan mode:\n%s", d.screen())
	}
	d.typeAndSend("change the loader")
	d.until("the plan's question", func(s string) bool {
		return strings.Contains(s, "Approve this plan?") && strings.Contains(s, "1. Change the loader") && strings.Contains(s, "Approve, and go on in auto mode")
	})
	d.answer(choiceSession)
	d.untilShows("Done.")
	if s := d.screen(); !strings.Contains(s, "auto mode") {
		t.Errorf("after approving in auto the status line does not show auto:\n%s", s)
	}
	if res := toolResultOf(srv.Requests()[1], "p1"); !strings.Contains(res, "approved the plan") {
		t.Errorf("the model read %q", res)
	}
}

// toolResultOf is the content of call id's result in a request.
func toolResultOf(req providers.Request, id string) string {
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok && r.CallID == id {
				return r.Content
			}
		}
	}
	return ""
}
