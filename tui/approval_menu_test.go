package tui

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools/picker"
)

// typeSlowly types text one key at a time, the clock moving by dt between
// keys, as a person types.
func (d *driver) typeSlowly(text string, dt time.Duration) {
	for _, r := range text {
		d.clock = d.clock.Add(dt)
		d.key(string(r))
	}
}

// askBash starts a turn ("build it") whose model runs command with bash and,
// when reply is not empty, answers reply once the call's result is back;
// it returns when the approval question waits, with the driver, the
// provider and the working directory.
func askBash(t *testing.T, command, reply string) (*driver, *fake.Provider, string) {
	t.Helper()
	dir := t.TempDir()
	steps := []fake.Reply{fake.ToolCalls(fake.Call{ID: "b", Name: "bash", Arguments: `{"command":` + strconv.Quote(command) + `}`})}
	if reply != "" {
		steps = append(steps, fake.Text(reply))
	}
	srv := fake.New(steps...)
	d := newDriver(t, config(t, srv, dir, NewApprover()))
	d.typeAndSend("build it")
	d.until("the approval question", func(string) bool { return d.m.approving != nil })
	return d, srv, dir
}

// The sequence of the issue: a bash question appears, and the person, who
// had not seen it, types "make sure it is fast". Nothing is answered (the
// `a` of "make" once allowed the command for the session) and the whole
// text is in the input.
func TestTypingWhenAQuestionAppearsNeverAnswersIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before time.Duration // how long the keyboard rested before the question appeared
	}{
		{"keyboard idle before", time.Minute},
		{"typing just before", 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, dir := askBash(t, "echo ran > ran.txt", "Done.")
			d.wait(tc.before)
			d.typeSlowly("make sure it is fast", 150*time.Millisecond)
			if d.m.approving == nil {
				t.Fatal("typing answered the question")
			}
			if got := d.m.input.Value(); got != "make sure it is fast" {
				t.Errorf("input = %q, want the whole text", got)
			}
			// Enter with text in the input goes to the prompt, never to the
			// question.
			d.key("enter")
			if d.m.approving == nil {
				t.Fatal("Enter with text in the input answered the question")
			}
			if _, err := os.Stat(dir + "/ran.txt"); err == nil {
				t.Fatal("the command ran without an answer")
			}
			if s := d.screen(); !strings.Contains(s, "Typing goes to the prompt") {
				t.Errorf("the question does not say where keys go:\n%s", s)
			}
			// Once the input is empty and the keyboard rests, the menu
			// answers.
			d.m.input.Reset()
			d.answer(choiceOnce)
			d.untilShows("Done.")
			if _, err := os.Stat(dir + "/ran.txt"); err != nil {
				t.Errorf("the command did not run once allowed: %v", err)
			}
		})
	}
}

// The menu takes keys only after approvalQuiet without a key to the input,
// by the model's clock.
func TestApprovalMenuWaitsForAQuietKeyboard(t *testing.T) {
	d, _, _ := askBash(t, "true", "Done.")
	if d.m.approvalTakesKeys() {
		t.Fatal("the menu takes keys right after Enter was pressed")
	}
	d.wait(approvalQuiet - time.Millisecond)
	if d.m.approvalTakesKeys() {
		t.Fatal("the menu takes keys before the keyboard rested a second")
	}
	d.wait(time.Millisecond)
	if !d.m.approvalTakesKeys() {
		t.Fatal("the menu takes no keys after a quiet second")
	}
	if s := d.screen(); !strings.Contains(s, "↑/↓ choose") {
		t.Errorf("the armed menu does not show its keys:\n%s", s)
	}
	d.key("x") // a typed key goes to the input and disarms the menu
	if d.m.approvalTakesKeys() || d.m.input.Value() != "x" || d.m.approving == nil {
		t.Fatalf("a typed key: input %q, menu armed %v", d.m.input.Value(), d.m.approvalTakesKeys())
	}
	d.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.wait(approvalQuiet)
	d.key("down")
	d.key("down")
	d.key("up")
	if d.m.approving.choice != choiceSession {
		t.Errorf("after down, down, up the choice is %d, want %d", d.m.approving.choice, choiceSession)
	}
	d.key("enter")
	d.untilShows("Done.")
}

// Deny with instructions: the person's words reach the model with the
// denial, in the tool's error result of the next request.
func TestDenyWithInstructionsReachesTheModel(t *testing.T) {
	d, srv, _ := askBash(t, "make build", "I will use go build.")
	d.answer(choiceInstruct)
	if d.m.approving == nil || !d.m.approving.instructing {
		t.Fatal("choosing to deny with instructions did not open the instructions")
	}
	d.key("use go build, no mak")
	d.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.key("ke")
	d.update(tea.PasteMsg{Content: " (it is faster)"})
	if s := d.screen(); !strings.Contains(s, "use go build, no make (it is faster)") {
		t.Errorf("the instructions are not shown as typed:\n%s", s)
	}
	if d.m.input.Value() != "" {
		t.Errorf("the instructions leaked into the prompt: %q", d.m.input.Value())
	}
	d.key("enter")
	d.untilShows("I will use go build.")
	got := toolResultsOf(srv.Requests()[1])["b"]
	if !strings.Contains(got, "denied") || !strings.Contains(got, "use go build, no make (it is faster)") {
		t.Errorf("the model read %q, want the denial with the instructions", got)
	}
	if b := d.m.blocks["b"]; b == nil || b.state != toolDenied {
		t.Errorf("the block does not show the denial")
	}
}

// Esc while typing instructions goes back to the menu; Esc at the menu
// denies and stops the turn.
func TestEscLeavesTheInstructionsThenDenies(t *testing.T) {
	d, _, _ := askBash(t, "true", "")
	d.answer(choiceInstruct)
	d.key("esc")
	if d.m.approving == nil || d.m.approving.instructing {
		t.Fatal("Esc in the instructions should go back to the menu")
	}
	d.key("esc")
	d.untilShows("Cancelled.")
}

// Shift+Tab cycles the permission mode ask → auto → plan, through the
// command's setter, and the status line shows it.
func TestShiftTabSwitchesThePermissionMode(t *testing.T) {
	srv := fake.New(fake.Text("Hi."))
	cfg := config(t, srv, t.TempDir(), NewApprover())
	var set []string
	cfg.PermissionMode = "ask"
	cfg.SetPermissionMode = func(m string) { set = append(set, m) }
	d := newDriver(t, cfg)
	shiftTab := tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	if s := d.screen(); !strings.Contains(s, "ask mode") {
		t.Fatalf("the status line does not show the mode:\n%s", s)
	}
	d.update(shiftTab)
	if s := d.screen(); !strings.Contains(s, "auto mode") || !strings.Contains(s, "Permission mode: auto") {
		t.Errorf("after Shift+Tab the screen does not show auto:\n%s", s)
	}
	d.update(shiftTab)
	if s := d.screen(); !strings.Contains(s, "plan mode") || !strings.Contains(s, "Permission mode: plan") {
		t.Errorf("a second Shift+Tab does not switch to plan:\n%s", s)
	}
	d.update(shiftTab)
	if s := d.screen(); !strings.Contains(s, "ask mode") {
		t.Errorf("a third Shift+Tab does not switch back:\n%s", s)
	}
	if strings.Join(set, ",") != "auto,plan,ask" {
		t.Errorf("modes set: %v, want auto, plan, then ask", set)
	}
	if d.m.input.Value() != "" {
		t.Errorf("Shift+Tab typed into the input: %q", d.m.input.Value())
	}
}

// In yolo mode (or with no setter) Shift+Tab says the mode is fixed.
func TestShiftTabInYoloSwitchesNothing(t *testing.T) {
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.PermissionMode = "yolo"
	called := false
	cfg.SetPermissionMode = func(string) { called = true }
	d := newDriver(t, cfg)
	d.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if called || !strings.Contains(d.screen(), "cannot be switched in this run") {
		t.Errorf("Shift+Tab in yolo: setter called %v, screen:\n%s", called, d.screen())
	}
}

// The key that answers one question is a key like any other for the next:
// a second question that appears right after (the model's next call) waits
// for a quiet keyboard too, so a double Enter allows one call, not two.
func TestTheKeyThatAnswersDoesNotAnswerTheNextQuestion(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo one > one.txt"}`}),
		fake.ToolCalls(fake.Call{ID: "b2", Name: "bash", Arguments: `{"command":"echo two > two.txt"}`}),
		fake.Text("Done."),
	)
	d := newDriver(t, config(t, srv, dir, NewApprover()))
	d.typeAndSend("go")
	d.answer(choiceOnce)
	d.until("the second question", func(string) bool { return d.m.approving != nil && d.m.approving.req.call.ID == "b2" })
	d.key("enter") // the same person's second press, no time later
	if d.m.approving == nil {
		t.Fatal("a second Enter right after answering answered the next question")
	}
	if _, err := os.Stat(dir + "/two.txt"); err == nil {
		t.Fatal("the second command ran without an answer given to it")
	}
	d.answer(choiceDeny)
	d.untilShows("Done.")
}

// Shift+Tab while a question waits decides it again in the new mode:
// switching to auto allows a call auto would not have asked about (the
// person said to stop asking), and switching back to ask leaves a waiting
// question waiting.
func TestShiftTabDecidesTheWaitingQuestionInTheNewMode(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo one > one.txt"}`}),
		fake.Text("Done."),
	)
	approver := NewApprover()
	var mode atomic.Value
	mode.Store("ask")
	cfg := config(t, srv, dir, approver)
	cfg.PermissionMode = "ask"
	cfg.SetPermissionMode = func(m string) { mode.Store(m) }
	rule := func() (loop.Decision, bool) {
		if mode.Load() == "auto" {
			return loop.Decision{Allow: true, Why: "auto: in the sandbox"}, true
		}
		return loop.Decision{}, false
	}
	reg := toolRegistry(t, dir)
	cfg.Session.NewLoop = func(model string) (*loop.Loop, error) {
		return loop.New(loop.Config{Provider: srv, Model: model, Catalog: picker.New(reg, picker.ModePick),
			Approve: func(ctx context.Context, req loop.Approval) loop.Decision {
				if d, ok := rule(); ok {
					return d
				}
				return approver.Ask(ctx, Question{Call: req.Call, Recheck: rule})
			}})
	}
	d := newDriver(t, cfg)
	d.typeAndSend("go")
	d.answer(choiceInstruct) // typing a denial: a switch does not answer for the person
	shiftTab := tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	d.update(shiftTab)
	if d.m.approving == nil || !d.m.approving.instructing {
		t.Fatal("a switch of mode answered a question whose denial was being typed")
	}
	d.update(shiftTab) // to plan
	d.update(shiftTab) // back to ask
	d.key("esc")       // back to the menu
	d.update(shiftTab) // to auto: the waiting call is allowed
	d.untilShows("Done.")
	if _, err := os.Stat(dir + "/one.txt"); err != nil {
		t.Fatalf("the waiting command did not run after switching to auto: %v", err)
	}
	if s := d.screen(); !strings.Contains(s, "The waiting bash call is allowed in auto mode") {
		t.Errorf("the switch does not say what became of the waiting call:\n%s", s)
	}
}

// Switching to ask (from plan) while a question waits leaves it waiting.
func TestShiftTabToAskLeavesTheQuestionWaiting(t *testing.T) {
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"true"}`}),
		fake.Text("Done."),
	)
	approver := NewApprover()
	cfg := config(t, srv, t.TempDir(), approver)
	cfg.PermissionMode = "plan"
	cfg.SetPermissionMode = func(string) {}
	d := newDriver(t, cfg)
	d.typeAndSend("go")
	d.until("the question", func(string) bool { return d.m.approving != nil })
	d.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if d.m.approving == nil || !strings.Contains(d.screen(), "ask mode") {
		t.Fatalf("switching to ask answered the question:\n%s", d.screen())
	}
	d.answer(choiceOnce)
	d.untilShows("Done.")
}

// /clear while a question waits keeps the question in view: it cleared the
// pane, and the menu, gone from the screen, still took Enter, so an
// invisible question was answered.
func TestClearKeepsTheWaitingQuestionInView(t *testing.T) {
	d, _, _ := askBash(t, "echo ran > ran.txt", "Done.")
	d.typeAndSend("/clear")
	d.wait(approvalQuiet)
	s := d.screen()
	if !strings.Contains(s, "Allow bash to run this command?") || !strings.Contains(s, "echo ran > ran.txt") || !strings.Contains(s, "↑/↓ choose") {
		t.Fatalf("after /clear the waiting question is not shown:\n%s", s)
	}
	d.answer(choiceDeny)
	d.untilShows("Done.")
	if b := d.m.blocks["b"]; b == nil || b.state != toolDenied {
		t.Error("the answer is not shown in the question's block")
	}
}

// Number keys answer as Claude Code's do (1 allow once, 3 deny), still
// only once the keyboard rested: a "3" typed as the question appears goes
// to the input.
func TestNumberKeysAnswerTheQuestion(t *testing.T) {
	d, srv, dir := askBash(t, "echo ran > ran.txt", "Done.")
	d.key("3")
	if d.m.approving == nil || d.m.input.Value() != "3" {
		t.Fatalf("a 3 typed as the question appeared: answered %v, input %q", d.m.approving == nil, d.m.input.Value())
	}
	d.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.wait(approvalQuiet)
	if s := d.screen(); !strings.Contains(s, "3. Deny") || !strings.Contains(s, "1-4 answer that one") {
		t.Errorf("the menu does not number its answers:\n%s", s)
	}
	d.key("3")
	d.untilShows("Done.")
	if _, err := os.Stat(dir + "/ran.txt"); err == nil {
		t.Error("3 (deny) ran the command")
	}
	if got := srv.Requests()[1]; !strings.Contains(fmt.Sprint(got.Messages[len(got.Messages)-1]), "the user denied this bash call") {
		t.Errorf("the model was not told of the denial: %v", got.Messages[len(got.Messages)-1])
	}
}
