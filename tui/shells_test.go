package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
	"github.com/agent-dev/agent/tools/shell"
)

// The real Manager is what cmd gives the interface.
var _ Shells = (*background.Manager)(nil)

// fakeShells are background processes the test sets; Stop ends one at
// once.
type fakeShells struct {
	mu      sync.Mutex
	procs   []tools.Process
	tails   map[string]string
	fg      int      // foreground commands SendToBackground sends
	sends   int      // SendToBackground's calls
	stopped []string // Stop's ids
	changes chan struct{}
}

var _ Shells = (*fakeShells)(nil)

func newFakeShells() *fakeShells {
	return &fakeShells{tails: map[string]string{}, changes: make(chan struct{}, 1)}
}

// set replaces the processes and signals the change.
func (f *fakeShells) set(procs ...tools.Process) {
	f.mu.Lock()
	f.procs = procs
	f.mu.Unlock()
	f.changed()
}

func (f *fakeShells) changed() {
	select {
	case f.changes <- struct{}{}:
	default:
	}
}

func (f *fakeShells) List() []tools.Process {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.procs)
}

func (f *fakeShells) Tail(id string, n int) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, ok := f.tails[id]
	lines := strings.Split(text, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n"), ok
}

func (f *fakeShells) Stop(_ context.Context, id string) (tools.Process, bool) {
	f.mu.Lock()
	defer f.changed()
	defer f.mu.Unlock()
	f.stopped = append(f.stopped, id)
	for i, p := range f.procs {
		if p.ID == id {
			if p.Running {
				p.Running, p.Stopped, p.ExitCode, p.Ended = false, true, -1, p.Started.Add(time.Minute)
				f.procs[i] = p
			}
			return p, true
		}
	}
	return tools.Process{}, false
}

func (f *fakeShells) SendToBackground() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends++
	n := f.fg
	f.fg = 0
	return n
}

func (f *fakeShells) Changes() <-chan struct{} { return f.changes }

// stops returns the ids Stop was called with.
func (f *fakeShells) stops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.stopped)
}

var shellsStart = time.Date(2026, 11, 23, 11, 58, 0, 0, time.UTC) // two minutes before the driver's clock

func devServer() tools.Process {
	return tools.Process{ID: "bash_1", Command: "npm run dev", PID: 4242, Started: shellsStart, Running: true, OutputBytes: 40}
}

func failedTests() tools.Process {
	return tools.Process{ID: "bash_2", Command: "go test ./...", PID: 4250, Started: shellsStart,
		ExitCode: 1, Ended: shellsStart.Add(12 * time.Second), OutputBytes: 30}
}

// shellsDriver is a driver whose interface has f as its background
// processes, holding procs once the interface has read them.
func shellsDriver(t *testing.T, f *fakeShells, procs ...tools.Process) *driver {
	t.Helper()
	cfg := config(t, fake.New(), t.TempDir(), nil)
	if f != nil {
		cfg.Shells = f
	}
	d := newDriver(t, cfg)
	if len(procs) > 0 {
		f.set(procs...)
		d.until("the processes read", func(string) bool { return slices.Equal(d.m.shells.procs, procs) })
	}
	return d
}

// statusLine is the screen's status line (the one naming the model).
func statusLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "scripted-model") {
			return l
		}
	}
	return ""
}

// The status line counts the running shells as they change, and a shell
// that ends on its own is told once in the pane; one that was stopped is
// not (who stopped it says so).
func TestShellsCountInTheStatusLineAndTheirEnds(t *testing.T) {
	f := newFakeShells()
	d := shellsDriver(t, f)
	if s := statusLine(d.screen()); strings.Contains(s, "shell") {
		t.Fatalf("a shell counted before any ran: %q", s)
	}
	web := tools.Process{ID: "bash_3", Command: "python -m http.server", Started: shellsStart, Running: true}
	ended := failedTests()
	stopped := web
	stopped.Running, stopped.Stopped, stopped.Ended = false, true, shellsStart.Add(time.Minute)
	for _, step := range []struct {
		procs  []tools.Process
		status string // in the status line, "" for no count
		note   string // in the pane, "" for none
	}{
		{[]tools.Process{devServer()}, "1 shell · scripted-model", ""},
		{[]tools.Process{devServer(), web}, "2 shells · scripted-model", ""},
		{[]tools.Process{devServer(), ended, web}, "2 shells", "Background shell bash_2 exited (code 1): go test ./..."},
		{[]tools.Process{devServer(), ended, stopped}, "1 shell", ""},
		{nil, "", ""},
	} {
		f.set(step.procs...)
		d.until("the list read", func(string) bool { return slices.Equal(d.m.shells.procs, step.procs) })
		screen := d.screen()
		line := statusLine(screen)
		if step.status == "" && strings.Contains(line, "shell") || step.status != "" && !strings.Contains(line, step.status) {
			t.Errorf("with %d processes the status line is %q, want %q", len(step.procs), line, step.status)
		}
		if step.note != "" && !strings.Contains(screen, step.note) {
			t.Errorf("no note %q:\n%s", step.note, screen)
		}
	}
	screen := d.screen()
	if n := strings.Count(screen, "Background shell "); n != 1 {
		t.Errorf("%d notes of ends, want 1 (bash_2's, once; bash_3 was stopped):\n%s", n, screen)
	}
}

// /shells lists the processes with their last lines; Enter shows one's
// output, Esc goes back, k stops the one chosen (an ended one is said to
// have ended), and Esc closes the dialog on the conversation, where the
// stop is told.
func TestShellsDialogListsShowsAndStops(t *testing.T) {
	f := newFakeShells()
	f.tails["bash_1"] = "compiled in 1.2s\nwarning: big bundle\nlistening on :3000"
	f.tails["bash_2"] = "--- FAIL: TestLoader\nFAIL"
	d := shellsDriver(t, f, devServer(), failedTests())

	d.typeAndSend("/shells")
	d.untilShows("listening on :3000")
	screen := d.screen()
	for _, want := range []string{"Background shells", "▌ bash_1   running     2m00s  npm run dev", "warning: big bundle",
		"bash_2   exit 1        12s  go test ./...", "--- FAIL: TestLoader"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the list lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "compiled in 1.2s") {
		t.Errorf("the list shows more than the last %d lines:\n%s", listTailLines, screen)
	}

	d.key("down")
	d.key("enter")
	d.untilShows("$ go test ./...")
	if screen := d.screen(); !strings.Contains(screen, "bash_2 · exit 1 · 12s · pid 4250") || strings.Contains(screen, "npm run dev") {
		t.Errorf("the output of bash_2 is not shown alone:\n%s", screen)
	}
	d.key("esc")
	d.untilShows("Background shells")

	d.key("k") // bash_2 has ended
	d.key("up")
	d.key("k")
	d.until("bash_1 stopped", func(s string) bool { return strings.Contains(s, "bash_1   stopped") })
	if got := f.stops(); !slices.Equal(got, []string{"bash_1"}) {
		t.Errorf("Stop was called for %v, want [bash_1]", got)
	}
	d.key("esc")
	screen = d.screen()
	for _, want := range []string{"Background shell bash_2 has already ended: it exited (code 1).", "Stopped background shell bash_1: npm run dev"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the pane lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(statusLine(screen), "shell") {
		t.Errorf("a stopped shell is still counted: %q", statusLine(screen))
	}
}

// The dialog as a person sees it: the list (a stop under way marked) and a
// process's output, cut to the width and the height.
func TestShellsDialogGolden(t *testing.T) {
	now := shellsStart.Add(2*time.Minute + 5*time.Second)
	web := tools.Process{ID: "bash_3", Command: "python -m http.server 8000 --bind 127.0.0.1 --directory /srv/www/public", Started: now.Add(-3 * time.Second), Running: true}
	d := &shellsDialog{st: goldenStyles(), procs: []tools.Process{devServer(), failedTests(), web}, now: now, cursor: 1,
		tails: map[string]string{"bash_1": "warning: big bundle\nlistening on :3000", "bash_2": "--- FAIL: TestLoader\n\x1b[31mFAIL\x1b[0m", "bash_3": ""}}
	stopping := map[string]bool{"bash_1": true}
	for _, width := range []int{50, 100} {
		requireGolden(t, "shells_list_"+strconv.Itoa(width), d.View(width, 8, stopping))
	}
	requireGolden(t, "shells_list_short_100", d.View(100, 3, stopping))
	d.viewing = "bash_1"
	d.tails["bash_1"] = numbered(12, "line %d of the dev server's output")
	for _, width := range []int{50, 100} {
		requireGolden(t, "shells_output_"+strconv.Itoa(width), d.View(width, 8, nil))
	}
	d.viewing = "bash_3"
	requireGolden(t, "shells_output_empty_100", d.View(100, 4, nil))
}

// /shells's text forms, each in a fresh interface holding a running and an
// ended process (or none).
func TestShellsCommandForms(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		none        bool     // the interface has no Shells
		empty       bool     // no process has run
		want        string   // on the screen
		stops       []string // Stop's calls
	}{
		{name: "no shells kept", input: "/shells", none: true, want: "This run keeps no background shells."},
		{name: "none ran", input: "/shells", empty: true, want: "No background shells. A command runs in the background"},
		{name: "list", input: "/shells", want: "▌ bash_1   running"},
		{name: "one's output", input: "/shells bash_2", want: "bash_2 · exit 1 · 12s"},
		{name: "unknown", input: "/shells bash_9", want: "No background shell bash_9; /shells lists them."},
		{name: "stop", input: "/shells stop bash_1", want: "Stopped background shell bash_1: npm run dev", stops: []string{"bash_1"}},
		{name: "kill", input: "/shells kill bash_1", want: "Stopped background shell bash_1: npm run dev", stops: []string{"bash_1"}},
		{name: "stop an ended one", input: "/shells stop bash_2", want: "Background shell bash_2 has already ended: it exited (code 1)."},
		{name: "stop which", input: "/shells stop", want: "Say which shell: /shells stop ID."},
		{name: "stop unknown", input: "/shells stop bash_9", want: "No background shell bash_9; /shells lists them.", stops: []string{"bash_9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d *driver
			var f *fakeShells
			switch {
			case tc.none:
				d = shellsDriver(t, nil)
			case tc.empty:
				f = newFakeShells()
				d = shellsDriver(t, f)
			default:
				f = newFakeShells()
				d = shellsDriver(t, f, devServer(), failedTests())
			}
			d.typeAndSend(tc.input)
			d.untilShows(tc.want)
			if f != nil {
				if got := f.stops(); !slices.Equal(got, tc.stops) {
					t.Errorf("Stop was called for %v, want %v", got, tc.stops)
				}
			}
		})
	}
}

// Ctrl+B sends the foreground commands to the background while a turn runs
// or on an empty input (a note says when there was none); with text in an
// idle input it is the input's, the cursor back one character; without
// Shells it is always the input's.
func TestCtrlB(t *testing.T) {
	for _, tc := range []struct {
		name  string
		none  bool   // the interface has no Shells
		input string // typed first
		sends int    // SendToBackground's calls
		note  bool   // "No command runs in the foreground"
		after string // the input after typing X
	}{
		{name: "empty input", sends: 1, note: true, after: "X"},
		{name: "text in the input", input: "abc", after: "abXc"},
		{name: "no shells", none: true, after: "X"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeShells()
			var d *driver
			if tc.none {
				d = shellsDriver(t, nil)
			} else {
				d = shellsDriver(t, f)
			}
			d.key(tc.input)
			d.key("ctrl+b")
			if tc.note {
				d.untilShows("No command runs in the foreground")
			}
			d.key("X")
			if got := d.m.input.Value(); got != tc.after {
				t.Errorf("the input is %q, want %q", got, tc.after)
			}
			if f.sends != tc.sends {
				t.Errorf("SendToBackground called %d times, want %d", f.sends, tc.sends)
			}
			if !tc.note && strings.Contains(d.screen(), "No command runs in the foreground") {
				t.Errorf("a note although Ctrl+B was the input's:\n%s", d.screen())
			}
		})
	}
}

// The whole path in one process, with the real bash tool and background
// processes: the model runs a long command, Ctrl+B sends it to the
// background (its call returns saying so, the turn goes on), the status
// line counts it, /shells lists it with its output, and k stops it.
func TestCtrlBSendsARunningCommandToTheBackground(t *testing.T) {
	dir := t.TempDir()
	bg, err := background.New(background.Config{Dir: t.TempDir(), KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bg.Close() })
	srv := fake.New(
		fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo started; exec sleep 600"}`}),
		fake.Text("It runs on in the background."),
	)
	cfg := config(t, srv, dir, nil)
	withTools(t, &cfg, srv, shell.New(shell.Config{Dir: dir, Background: bg, Detachable: true}))
	cfg.Shells = bg
	d := newDriver(t, cfg)
	d.typeAndSend("start the server")
	d.untilShows("started")
	if !strings.Contains(d.m.help.View(d.m.keys), "ctrl+b") {
		t.Errorf("the help line does not offer ctrl+b while the command runs: %q", d.m.help.View(d.m.keys))
	}
	d.key("ctrl+b")
	d.untilShows("It runs on in the background.")
	screen := d.screen()
	if !strings.Contains(screen, "sent the command to the background") {
		t.Errorf("the call's result does not say it went to the background:\n%s", screen)
	}
	d.until("the shell counted", func(s string) bool { return strings.Contains(statusLine(s), "1 shell") })
	procs := bg.List()
	if len(procs) != 1 || !procs[0].Running {
		t.Fatalf("background processes: %+v", procs)
	}

	d.typeAndSend("/shells")
	d.untilShows("bash_1   running")
	d.key("k")
	d.key("esc")
	d.untilShows("Stopped background shell bash_1")
	d.until("no shell counted", func(s string) bool { return !strings.Contains(statusLine(s), "shell") })
	if p := bg.List()[0]; p.Running || !p.Stopped {
		t.Errorf("bash_1 after the stop: %+v", p)
	}
}

// A question that arrives while the dialog is open closes it: the question
// takes the keys, and it must be seen.
func TestAQuestionClosesTheShellsDialog(t *testing.T) {
	srv := fake.New(fake.ToolCalls(fake.Call{ID: "b1", Name: "bash", Arguments: `{"command":"echo hi"}`}), fake.Text("Done."))
	cfg := config(t, srv, t.TempDir(), NewApprover())
	f := newFakeShells()
	cfg.Shells = f
	d := newDriver(t, cfg)
	f.set(devServer())
	d.until("the processes read", func(string) bool { return len(d.m.shells.procs) == 1 })
	d.typeAndSend("/shells")
	d.untilShows("Background shells")
	d.update(submitMsg{"say hi"}) // a prompt the queue sends as the dialog is open
	d.untilShows("Allow bash to run this command?")
	if d.m.shellsView != nil {
		t.Error("the dialog is still open under the question")
	}
}
