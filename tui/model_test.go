package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
)

func TestPromptStreamsAnAnswerAndAToolBlock(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/main.go", []byte("package main\n\nfunc main() {}\n"), 0o644)
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "g", Name: "grep", Arguments: `{"pattern":"func main"}`}),
		fake.Text("The **entry point** is `main` in main.go.").WithUsage(1200, 34),
	)
	d := newDriver(t, config(t, srv, dir, nil))
	d.typeAndSend("where is main?")
	d.untilShows("entry point")
	s := d.screen()
	for _, want := range []string{"where is main?", "grep", "func main", "✓", "main.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "**entry point**") {
		t.Errorf("markdown was not rendered:\n%s", s)
	}
	d.until("turn end", func(string) bool { return !d.m.running })
	if len(d.m.session.Conv.Messages()) != 4 {
		t.Errorf("history has %d messages after the turn, want 4 (user, call, result, answer)", len(d.m.session.Conv.Messages()))
	}
}

func TestApprovalAsksInlineAndRunsOnYes(t *testing.T) {
	d, _, dir := askBash(t, "echo approved > out.txt", "Done.")
	d.untilShows("echo approved > out.txt")
	if _, err := os.Stat(dir + "/out.txt"); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	d.answer(choiceOnce)
	d.untilShows("Done.")
	if data, err := os.ReadFile(dir + "/out.txt"); err != nil || string(data) != "approved\n" {
		t.Errorf("out.txt = %q, %v", data, err)
	}
}

func TestDenialIsAResultTheModelReads(t *testing.T) {
	d, srv, _ := askBash(t, "rm -rf build", "Understood, I will not.")
	d.answer(choiceDeny)
	d.untilShows("Understood")
	results := toolResultsOf(srv.Requests()[1])
	if !strings.Contains(results["b"], "denied") {
		t.Errorf("the model should read a denial, got %q", results["b"])
	}
}

func TestEscCancelsARunningTurnAndKeepsThePartialAnswer(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras answer before the hold, then more.").WithPieceSize(8).HoldAfterEvents(3, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.untilShows("Zebras") // a word the status line's directory cannot hold
	d.key("esc")
	d.untilShows("Cancelled.")
	if d.m.running {
		t.Errorf("the turn still runs after Esc")
	}
	if s := d.screen(); !strings.Contains(s, "Zebras") {
		t.Errorf("the partial answer is gone:\n%s", s)
	}
	if n := len(d.m.session.Conv.Messages()); n != 2 {
		t.Errorf("history has %d messages, want the prompt and the partial answer: %+v", n, d.m.session.Conv.Messages())
	}
}

func TestCtrlCQuitsOnlyWhenIdle(t *testing.T) {
	srv := fake.New()
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.key("draft")
	d.key("ctrl+c")
	if d.quit {
		t.Fatal("one Ctrl+C with text in the input quit")
	}
	d.untilShows("Ctrl+C again")
	d.key("ctrl+c")
	d.until("quit", func(string) bool { return d.quit })

	d = newDriver(t, config(t, srv, t.TempDir(), nil))
	d.key("ctrl+c")
	d.until("quit on an empty prompt", func(string) bool { return d.quit })
}

// Ctrl+C in a turn cancels it and says a second press quits; that second
// press quits even when the turn is still ending.
func TestCtrlCTwiceInATurnQuits(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras answer before the hold, then more.").WithPieceSize(8).HoldAfterEvents(3, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.untilShows("Zebras")
	d.key("ctrl+c")
	if d.quit {
		t.Fatal("one Ctrl+C in a turn quit")
	}
	d.untilShows("Ctrl+C again")
	d.key("ctrl+c")
	d.until("quit", func(string) bool { return d.quit })
}

func TestSlashCommands(t *testing.T) {
	srv := fake.New()
	d := newDriver(t, config(t, srv, t.TempDir(), nil))

	d.key("/mo")
	d.untilShows("switch the model") // completion hint
	d.key("tab")
	if got := d.m.input.Value(); got != "/model " {
		t.Fatalf("tab completed to %q", got)
	}
	d.key("other-model")
	d.key("enter")
	d.untilShows("Model: other-model.")
	if !strings.Contains(d.screen(), "other-model") || d.m.cfg.Model != "other-model" {
		t.Errorf("model not switched")
	}

	d.typeAndSend("/tools")
	d.untilShows("Tools: bash, grep, list_files, read_file.")

	d.typeAndSend("/nope")
	d.untilShows("Unknown command /nope")

	d.typeAndSend("/new")
	d.untilShows("New conversation.")
	if strings.Contains(d.screen(), "Unknown command") {
		t.Errorf("/new should clear the pane")
	}
}

func TestPromptHistoryRecall(t *testing.T) {
	srv := fake.New(fake.Text("one"), fake.Text("two"))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("first prompt")
	d.untilShows("one")
	d.until("idle", func(string) bool { return !d.m.running })
	d.typeAndSend("second prompt")
	d.untilShows("two")
	d.key("draft")
	d.key("up")
	if got := d.m.input.Value(); got != "second prompt" {
		t.Errorf("up recalled %q", got)
	}
	d.key("up")
	if got := d.m.input.Value(); got != "first prompt" {
		t.Errorf("up again recalled %q", got)
	}
	d.key("down")
	d.key("down")
	if got := d.m.input.Value(); got != "draft" {
		t.Errorf("down past the newest gave %q, want the draft back", got)
	}
}

func TestErrorsShowInThePaneAndThePromptStaysUsable(t *testing.T) {
	srv := fake.New(fake.Error(&providers.APIError{StatusCode: 401, Message: "bad key"}), fake.Text("works now"))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("hi")
	d.untilShows("Error:")
	d.until("idle", func(string) bool { return !d.m.running })
	d.typeAndSend("again")
	d.untilShows("works now")
}

func TestPickToolsIsANoteAndReasoningIsFolded(t *testing.T) {
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["grep","read_file"]}`}),
		fake.Text("Answer after picking.").WithReasoning("line one of thinking\nline two\nline three\nline four\nthe last line"),
	)
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.untilShows("Answer after picking.")
	s := d.screen()
	if !strings.Contains(s, "Picked grep, read_file.") {
		t.Errorf("no pick note:\n%s", s)
	}
	if strings.Contains(s, `"names"`) || len(d.m.order) != 0 {
		t.Errorf("pick_tools was shown as a tool block:\n%s", s)
	}
	if !strings.Contains(s, "the last line") || strings.Contains(s, "line one of thinking") {
		t.Errorf("reasoning should be folded to its last lines:\n%s", s)
	}
}

func TestExpandShowsTheWholeToolResult(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("row-%02d", i))
	}
	os.WriteFile(dir+"/rows.txt", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "r", Name: "read_file", Arguments: `{"path":"rows.txt"}`}),
		fake.Text("Read it."),
	)
	d := newDriver(t, config(t, srv, dir, nil))
	d.typeAndSend("read rows")
	d.untilShows("Read it.")
	if strings.Contains(d.screen(), "row-20") {
		t.Fatalf("a folded block shows its whole result:\n%s", d.screen())
	}
	d.key("ctrl+o")
	d.m.chat.top()
	d.untilShows("row-20")
}

func TestCtrlJInsertsANewlineAndEnterSends(t *testing.T) {
	srv := fake.New(fake.Text("ok"))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.key("first")
	d.update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
	d.key("second")
	if got := d.m.input.Value(); got != "first\nsecond" {
		t.Fatalf("input = %q", got)
	}
	d.key("enter")
	d.untilShows("ok")
	if got := srv.Requests()[0].Messages; got[len(got)-1].Text() != "first\nsecond" {
		t.Errorf("sent %q", got[len(got)-1].Text())
	}
}

func TestResumedHistoryIsShownAndSent(t *testing.T) {
	srv := fake.New(fake.Text("continuing"))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Session.Conv = conversation.Restore(conversation.State{Messages: []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "earlier question"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "Looking."}, providers.ToolCall{ID: "g1", Name: "grep", Arguments: `{"pattern":"needle"}`}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "g1", Name: "grep", Content: "a.go:3:needle"}}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "Found it in **a.go**."}}},
	}}, nil)
	d := newDriver(t, cfg)
	s := d.screen()
	for _, want := range []string{"earlier question", "Looking.", "grep", "needle", "✓", "Found it in a.go.", "Resumed"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed screen lacks %q:\n%s", want, s)
		}
	}
	d.key("up")
	if got := d.m.input.Value(); got != "earlier question" {
		t.Errorf("up recalled %q, want the resumed prompt", got)
	}
	d.m.input.Reset()
	d.typeAndSend("and then?")
	d.untilShows("continuing")
	msgs := srv.Requests()[0].Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,assistant,user" {
		t.Errorf("request roles %s; want the resumed history then the prompt (and no system message, none was set)", got)
	}
}

func TestCtrlCCancelsARunningTurnWithoutQuitting(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Zebras keep streaming and streaming.").WithPieceSize(6).HoldAfterEvents(2, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.untilShows("Zebras")
	d.key("ctrl+c")
	d.untilShows("Cancelled.")
	if d.quit {
		t.Errorf("Ctrl+C during a turn quit the interface")
	}
}

func TestEscStopsARunningCommand(t *testing.T) {
	dir := t.TempDir()
	srv := fake.New(fake.ToolCalls(fake.Call{ID: "s", Name: "bash", Arguments: `{"command":"echo started; sleep 300"}`}))
	d := newDriver(t, config(t, srv, dir, nil))
	d.typeAndSend("wait")
	d.until("the command running", func(string) bool { b := d.m.blocks["s"]; return b != nil && b.running() })
	d.key("esc")
	d.untilShows("Cancelled.")
	if b := d.m.blocks["s"]; b == nil || b.running() {
		t.Errorf("the tool block still runs after Esc")
	}
}

func TestEscWhileAQuestionWaitsDeniesAndCancels(t *testing.T) {
	d, srv, dir := askBash(t, "touch x", "")
	d.key("pgup") // the pane scrolls while the question waits
	if d.m.approving == nil {
		t.Fatal("a scroll key answered the question")
	}
	d.key("esc")
	d.untilShows("Cancelled.")
	if _, err := os.Stat(dir + "/x"); err == nil {
		t.Errorf("the denied command ran")
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("the cancelled turn sent another request")
	}
}

func TestScrollingUnpinsAndEndFollowsAgain(t *testing.T) {
	var text strings.Builder
	for i := range 80 {
		fmt.Fprintf(&text, "Line %d of a long answer.\n\n", i)
	}
	hold := make(chan struct{})
	srv := fake.New(fake.Text(text.String()),
		fake.Text("Kiwis first, then after a pause the Ostriches arrive last.").WithPieceSize(10).HoldAfterEvents(2, hold))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("long")
	d.untilShows("Line 79 of")
	d.until("idle", func(string) bool { return !d.m.running })
	d.typeAndSend("more") // sending pins the view to the bottom
	d.untilShows("Kiwis")
	d.update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	d.key("pgup")
	if d.m.chat.following() || strings.Contains(d.screen(), "Kiwis") {
		t.Fatalf("scrolling up did not move the view:\n%s", d.screen())
	}
	close(hold)
	d.until("the turn to end", func(string) bool { return !d.m.running })
	if strings.Contains(d.screen(), "Ostriches") {
		t.Errorf("new output moved a view the person had scrolled up")
	}
	d.update(tea.KeyPressMsg{Code: tea.KeyEnd})
	d.untilShows("Ostriches arrive last.")
}

func TestResizeReflowsTheConversation(t *testing.T) {
	srv := fake.New(fake.Text(strings.Repeat("word ", 60)))
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.until("idle", func(string) bool { return !d.m.running })
	for _, w := range []int{100, 40} {
		d.update(tea.WindowSizeMsg{Width: w, Height: 30})
		for _, line := range strings.Split(d.screen(), "\n") {
			if ansi.StringWidth(line) > w {
				t.Errorf("at width %d a line has %d columns: %q", w, ansi.StringWidth(line), line)
			}
		}
	}
}

func TestInitialPromptIsSentAtOnce(t *testing.T) {
	srv := fake.New(fake.Text("answered the argument"))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Prompt = "from the command line"
	d := newDriver(t, cfg)
	d.untilShows("answered the argument")
	if !strings.Contains(d.screen(), "❯ from the command line") {
		t.Errorf("the initial prompt is not shown:\n%s", d.screen())
	}
}

func TestHelpAndQuitCommands(t *testing.T) {
	srv := fake.New()
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.update(tea.WindowSizeMsg{Width: 100, Height: 80})
	d.typeAndSend("/help")
	d.untilShows("/model [NAME]")
	// /help lists every key in the pane, where a short terminal shows them
	// too; ? toggles the panel under the input.
	requireEveryKeyShown(t, d.m.keys, d.screen())
	if d.m.help.ShowAll {
		t.Errorf("/help opened the ? panel as well")
	}
	d.key("?") // on an empty input, ? toggles the full help
	if !d.m.help.ShowAll {
		t.Errorf("? did not open the help")
	}
	d.key("?")
	if d.m.help.ShowAll {
		t.Errorf("? did not fold the help")
	}
	d.typeAndSend("/quit")
	d.until("quit", func(string) bool { return d.quit })
}

func TestGitStatusAfterATurnThatRanCommands(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b", Name: "bash", Arguments: `{"command":"echo x > made-by-bash.txt"}`}),
		fake.Text("Made a file."),
	)
	d := newDriver(t, config(t, srv, dir, nil))
	d.typeAndSend("make a file")
	d.untilShows("?? made-by-bash.txt")
}

// /tools reads the session's picks while the loop's goroutine changes them:
// run with -race, this fails if the picks are shared without
// synchronisation. Picks last for the session, so /tools still lists them
// after the turn.
func TestToolsDuringATurnReadsTheSessionsPicks(t *testing.T) {
	hold1, hold2 := make(chan struct{}), make(chan struct{})
	pick := fake.ToolCalls(fake.Call{ID: "p", Name: "pick_tools", Arguments: `{"names":["grep","read_file"]}`})
	pick.Text = "Picking the tools."
	srv := fake.New(
		pick.HoldAfterEvents(1, hold1),
		fake.Text("Picked what I need, and now the answer.").WithPieceSize(8).HoldAfterEvents(2, hold2),
	)
	d := newDriver(t, config(t, srv, t.TempDir(), nil))
	d.typeAndSend("go")
	d.until("the turn running", func(string) bool { return d.m.running })
	d.typeAndSend("/tools")
	d.untilShows("None picked yet")
	close(hold1) // the loop picks while /tools keeps reading
	for !strings.Contains(d.screen(), "Offered in full: grep, read_file.") {
		d.typeAndSend("/tools")
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-time.After(waitLimit):
			t.Fatalf("the picks never showed:\n%s", d.screen())
		}
	}
	close(hold2)
	d.until("turn end", func(string) bool { return !d.m.running })
	d.typeAndSend("/tools")
	if got := d.m.session.Conv.Picked(); strings.Join(got, ",") != "grep,read_file" {
		t.Errorf("picked after the turn = %v", got)
	}
}
