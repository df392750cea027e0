package tui

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/shell"
)

// driver runs the model as Bubble Tea would: commands run in goroutines and
// their messages come back to Update, one at a time, on the test goroutine.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	quit bool
	// clock is the model's clock (Model.now): it moves only when the test
	// says so.
	clock time.Time
}

// waitLimit bounds how long the driver waits for the screen to show
// something; reaching it means the model is stuck.
const waitLimit = 20 * time.Second

func newDriver(t *testing.T, cfg Config) *driver {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), clock: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	m.now = func() time.Time { return d.clock }
	d.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.run(m.Init())
	return d
}

// run executes cmd in the background; batches fan out.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				d.run(c)
			}
		default:
			if reflect.TypeOf(msg) == reflect.TypeOf(tea.Quit()) {
				d.msgs <- quitSeen{}
				return
			}
			d.msgs <- msg
		}
	}()
}

type quitSeen struct{}

func (d *driver) update(msg tea.Msg) {
	if _, ok := msg.(quitSeen); ok {
		d.quit = true
		return
	}
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// screen is the view as plain text.
func (d *driver) screen() string { return ansi.Strip(d.m.View().Content) }

// until feeds messages until the screen satisfies ok.
func (d *driver) until(what string, ok func(screen string) bool) {
	d.t.Helper()
	deadline := time.After(waitLimit)
	for !ok(d.screen()) {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			d.t.Fatalf("screen never showed %s:\n%s", what, d.screen())
		}
	}
}

func (d *driver) untilShows(text string) {
	d.t.Helper()
	d.until(text, func(s string) bool { return strings.Contains(s, text) })
}

// key sends a key press: "enter", "esc", "ctrl+c", "tab", "up", "pgup" or
// a single character.
func (d *driver) key(k string) {
	named := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "pgup": {Code: tea.KeyPgUp},
		"pgdown": {Code: tea.KeyPgDown}, "ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "ctrl+o": {Code: 'o', Mod: tea.ModCtrl},
		"ctrl+b": {Code: 'b', Mod: tea.ModCtrl}, "ctrl+x": {Code: 'x', Mod: tea.ModCtrl},
	}
	if msg, ok := named[k]; ok {
		d.update(msg)
		return
	}
	for _, r := range k {
		d.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// wait moves the model's clock on by dt and lets the model look at it.
func (d *driver) wait(dt time.Duration) {
	d.clock = d.clock.Add(dt)
	d.update(approvalArmMsg{})
}

// answer waits for the approval question, lets the keyboard be quiet long
// enough for its menu to take keys, moves down to the choice-th answer
// (choiceOnce, choiceSession, choiceDeny, choiceInstruct) and presses Enter.
func (d *driver) answer(choice int) {
	d.t.Helper()
	d.until("the approval question", func(string) bool { return d.m.approving != nil })
	d.wait(approvalQuiet)
	for range choice {
		d.key("down")
	}
	d.key("enter")
}

func (d *driver) typeAndSend(text string) {
	d.key(text)
	d.key("enter")
}

// openRoot opens dir as the tools' root, closed when the test ends.
func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// toolRegistry is the real file tools and bash on dir.
func toolRegistry(t *testing.T, dir string) *tools.Registry {
	t.Helper()
	reg, err := tools.NewRegistry(append(fs.Tools(openRoot(t, dir)), shell.New(shell.Config{Dir: dir}))...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// config builds a Config whose loop talks to srv with real tools on dir.
func config(t *testing.T, srv *fake.Provider, dir string, approver *Approver) Config {
	t.Helper()
	reg := toolRegistry(t, dir)
	set := picker.New(reg, picker.ModePick)
	approve := func(ctx context.Context, req loop.Approval) loop.Decision {
		if approver == nil || req.Def.ReadOnly {
			return loop.Decision{Allow: true}
		}
		return approver.Ask(ctx, Question{Call: req.Call, Summary: req.Def.Summary(req.Call.Arguments),
			Commands: req.Def.Effects.Has(tools.RunsCommands)})
	}
	return Config{
		Model: "scripted-model", Dir: dir, Approver: approver,
		Session: &Session{ID: "s1", Conv: conversation.New("", nil), NewLoop: func(model string) (*loop.Loop, error) {
			return loop.New(loop.Config{
				Provider: srv,
				Model:    model, Catalog: set, Approve: approve,
			})
		}},
		Tools:      func(picked []string) ([]string, []string) { return reg.Names(), set.Full(picked) },
		Definition: set.Definition,
	}
}

// testDefinition looks up the definition of one of the agent's own tools,
// so that tests draw a call as the interface draws it.
func testDefinition(name string) (tools.Definition, bool) {
	root, err := os.OpenRoot(".")
	if err != nil {
		panic(err)
	}
	defer root.Close()
	reg, err := tools.NewRegistry(append(fs.ToolsWith(root, fs.Options{}), shell.New(shell.Config{Dir: "."}))...)
	if err != nil {
		panic(err)
	}
	return picker.New(reg, picker.ModePick).Definition(name)
}

// callBlock is the block of a call of the tool name with the raw arguments
// args, read as its definition summarises it.
func callBlock(st *styles, id, name, args string) *toolBlock {
	def, ok := testDefinition(name)
	if !ok {
		def = tools.Definition{Name: name}
	}
	b := newToolBlock(st, id, name, def.Summary(args))
	b.commands = def.Effects.Has(tools.RunsCommands)
	return b
}

func toolResultsOf(req providers.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if r, ok := p.(providers.ToolResult); ok {
				out[r.CallID] = r.Content
			}
		}
	}
	return out
}
