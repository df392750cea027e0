package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/providers/fake"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestTheNotificationMethodFollowsTheTerminal(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, NotifyOSC9},
		{map[string]string{"TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"}, NotifyOSC9},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, NotifyOSC9},
		{map[string]string{"TERM": "xterm-kitty"}, NotifyOSC9},
		{map[string]string{"TERM_PROGRAM": "ghostty"}, NotifyOSC9},
		{map[string]string{"WT_SESSION": "x"}, NotifyOSC9},
		{map[string]string{"TERM": "foot"}, NotifyOSC777},
		{map[string]string{"TERM": "rxvt-unicode-256color"}, NotifyOSC777},
		{map[string]string{"TERM": "xterm-256color"}, NotifyBell},
	} {
		if got := newNotifier(NotifyConfig{Method: NotifyAuto}, envMap(tt.env)).method; got != tt.want {
			t.Errorf("%v: %s, want %s", tt.env, got, tt.want)
		}
	}
	if got := newNotifier(NotifyConfig{Method: NotifyOSC777}, envMap(map[string]string{"TERM_PROGRAM": "iTerm.app"})).method; got != NotifyOSC777 {
		t.Errorf("the setting loses to detection: %s", got)
	}
}

func TestNotificationSequences(t *testing.T) {
	n := newNotifier(NotifyConfig{Method: NotifyOSC9}, envMap(nil))
	// A body cannot end the sequence early or start another.
	if got := n.sequence("done: a\x07b\x1b]0;pwned\x07\nnext line"); got != "\x1b]9;agent: done: ab]0;pwned next line\x07" {
		t.Errorf("osc9 %q", got)
	}
	n.method = NotifyOSC777
	if got := n.sequence("done"); got != "\x1b]777;notify;agent;done\x07" {
		t.Errorf("osc777 %q", got)
	}
	n.method = NotifyBell
	if got := n.sequence("done"); got != "\a" {
		t.Errorf("bell %q", got)
	}
	n = newNotifier(NotifyConfig{Method: NotifyOSC9}, envMap(map[string]string{"TMUX": "/tmp/tmux-0/default,1,0"}))
	if got := n.sequence("done"); got != "\x1bPtmux;\x1b\x1b]9;agent: done\x07\x1b\\" {
		t.Errorf("inside tmux %q", got)
	}
}

func TestWhenANotificationIsDue(t *testing.T) {
	n := newNotifier(NotifyConfig{Method: NotifyBell, After: 30 * time.Second}, envMap(nil))
	if n.due(10*time.Second) || !n.due(31*time.Second) || n.due(0) {
		t.Error("without a focus report only a long turn is told")
	}
	n.focus = focusOut
	if !n.due(time.Second) || !n.due(0) {
		t.Error("out of focus every end and question is told")
	}
	n.focus = focusIn
	if n.due(time.Hour) {
		t.Error("a focused terminal was told")
	}
	n = newNotifier(NotifyConfig{Method: NotifyOff, After: time.Second}, envMap(nil))
	n.focus = focusOut
	if n.due(time.Hour) || n.reportsFocus() {
		t.Error("off tells nothing and asks for no focus reports")
	}
}

// terminalOutput is what the program wrote; each write signals changed.
type terminalOutput struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func (o *terminalOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.b.Write(p)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (o *terminalOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// runOnPipes runs the interface of cfg as a program on a terminal of pipes
// (100x30, its notifications not this test's own terminal's, tmux's) and
// returns where to type and what it wrote; the program stops, and is
// waited for, when the test ends.
func runOnPipes(t *testing.T, cfg Config) (io.Writer, *terminalOutput) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.notifier = newNotifier(cfg.Notify, envMap(nil))
	in, keys := io.Pipe()
	out := &terminalOutput{changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(100, 30), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	t.Cleanup(func() {
		cancel()
		keys.Close()
		<-done
	})
	return keys, out
}

// waitFor blocks until the output holds s, or the test's deadline.
func (o *terminalOutput) waitFor(t *testing.T, s string) {
	t.Helper()
	for !strings.Contains(o.String(), s) {
		select {
		case <-o.changed:
		case <-t.Context().Done():
			t.Fatalf("the terminal never got %q:\n%q", s, o.String())
		}
	}
}

// TestATerminalThatLostFocusIsToldOnceWhenTheTurnEnds runs the interface
// as a program on a terminal of pipes: it asks for focus reports; a turn
// that ends while the terminal reports focus in writes no notification;
// after the terminal reports focus out, the next turn's end writes the
// OSC 9 sequence, once.
func TestATerminalThatLostFocusIsToldOnceWhenTheTurnEnds(t *testing.T) {
	cfg := config(t, fake.New(fake.Text("first answer"), fake.Text("second answer")), t.TempDir(), nil)
	cfg.Notify = NotifyConfig{Method: NotifyOSC9}
	keys, out := runOnPipes(t, cfg)
	out.waitFor(t, "\x1b[?1004h") // focus reporting on
	io.WriteString(keys, "\x1b[I")
	io.WriteString(keys, "hello\r")
	out.waitFor(t, "first answer")
	io.WriteString(keys, "\x1b[O")
	io.WriteString(keys, "again\r")
	out.waitFor(t, "\x1b]9;agent: done: second answer\x07")
	if n := strings.Count(out.String(), "\x1b]9;"); n != 1 {
		t.Errorf("%d notifications, want 1 (none for the turn that ended in focus)", n)
	}
}

// TestATurnThePersonCancelledIsNotTold: on a terminal that never reports
// its focus (tmux without focus-events), a long turn the person cancelled
// with Esc rings nothing (the person is at the keyboard); the next long
// turn that ends by itself is told.
func TestATurnThePersonCancelledIsNotTold(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("a long answer that the person cuts short").WithPieceSize(4).HoldAfterEvents(2, hold), fake.Text("second answer"))
	cfg := config(t, srv, t.TempDir(), nil)
	cfg.Notify = NotifyConfig{Method: NotifyOSC9, After: time.Nanosecond}
	keys, out := runOnPipes(t, cfg)
	out.waitFor(t, "\x1b[?1004h")
	io.WriteString(keys, "hello\r")
	out.waitFor(t, "a lo")
	io.WriteString(keys, "\x1b")
	out.waitFor(t, "Cancelled.")
	io.WriteString(keys, "again\r")
	out.waitFor(t, "\x1b]9;agent: done: second answer\x07")
	if n := strings.Count(out.String(), "\x1b]9;"); n != 1 {
		t.Errorf("%d notifications, want 1 (none for the turn the person cancelled):\n%q", n, out.String())
	}
}
