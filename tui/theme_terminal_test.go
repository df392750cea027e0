package tui

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/prefs"
	"github.com/agent-dev/agent/providers/fake"
)

// fakeTerminal runs the interface in a tea.Program whose input and output
// are pipes: the test plays the terminal, reading what the program writes
// and answering (or not) its questions.
type fakeTerminal struct {
	t      *testing.T
	p      *tea.Program
	m      *Model
	in     *io.PipeWriter
	chunks chan string
	seen   strings.Builder
	done   chan error
}

func startFakeTerminal(t *testing.T, cfg Config) *fakeTerminal {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ft := &fakeTerminal{t: t, m: m, in: inW, chunks: make(chan string, 64), done: make(chan error, 1)}
	ft.p = tea.NewProgram(m, tea.WithInput(inR), tea.WithOutput(outW), tea.WithWindowSize(100, 30),
		tea.WithColorProfile(colorprofile.TrueColor), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	go func() {
		_, err := ft.p.Run()
		outW.Close()
		ft.done <- err
	}()
	go func() {
		defer close(ft.chunks)
		buf := make([]byte, 64<<10)
		for {
			n, err := outR.Read(buf)
			if n > 0 {
				ft.chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		ft.p.Quit()
		inW.Close()
		for range ft.chunks {
		}
		<-ft.done
	})
	return ft
}

// waitOutput reads what the program writes until all of it together holds
// want (escape sequences included) or, with plain, its text does.
func (ft *fakeTerminal) waitOutput(want string, plain bool) {
	ft.t.Helper()
	deadline := time.After(waitLimit)
	for {
		s := ft.seen.String()
		if plain {
			s = ansi.Strip(s)
		}
		if strings.Contains(s, want) {
			return
		}
		select {
		case c, ok := <-ft.chunks:
			if !ok {
				ft.t.Fatalf("the program ended before writing %q", want)
			}
			ft.seen.WriteString(c)
		case <-deadline:
			ft.t.Fatalf("the program never wrote %q; it wrote %q", want, ft.seen.String())
		}
	}
}

// quit ends the program and waits for it.
func (ft *fakeTerminal) quit() {
	ft.t.Helper()
	ft.p.Quit()
	go func() {
		for range ft.chunks {
		}
	}()
	if err := <-ft.done; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		ft.t.Fatal(err)
	}
	ft.done <- nil // for the cleanup
}

// osc11Query is how Bubble Tea asks the terminal for its background.
const osc11Query = "\x1b]11;?\x07"

// A terminal that answers OSC 11 with a white background: the interface
// turns light at once and remembers the answer for this terminal.
func TestAutoAsksARealProgramsTerminal(t *testing.T) {
	themeEnv(t)
	f := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = f
	ft := startFakeTerminal(t, cfg)
	ft.waitOutput(osc11Query, false)
	if _, err := io.WriteString(ft.in, "\x1b]11;rgb:ffff/ffff/ffff\x07"); err != nil {
		t.Fatal(err)
	}
	ft.waitOutput("38;2;138;138;138", false) // the light theme's secondary text
	ft.quit()
	if ft.m.st.Theme != "light" {
		t.Errorf("theme %q, want light", ft.m.st.Theme)
	}
	if p := loadPrefs(t, f); p.Backgrounds["TestTerm"] != "light" {
		t.Errorf("prefs remember %v, want TestTerm: light", p.Backgrounds)
	}
}

// A terminal that never answers: the interface draws and takes keys
// meanwhile (dark), nothing waits on the answer, nothing is remembered.
func TestAutoWithASilentTerminalDoesNotHang(t *testing.T) {
	themeEnv(t)
	f := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = f
	ft := startFakeTerminal(t, cfg)
	ft.waitOutput(osc11Query, false)
	ft.waitOutput("Ask about this repository", true)
	if _, err := io.WriteString(ft.in, "/theme\r"); err != nil {
		t.Fatal(err)
	}
	ft.waitOutput("not known, dark", true)
	ft.quit()
	if ft.m.st.Theme != "dark" {
		t.Errorf("theme %q, want dark", ft.m.st.Theme)
	}
	if p := loadPrefs(t, f); len(p.Backgrounds) != 0 {
		t.Errorf("remembered %v without an answer", p.Backgrounds)
	}
}
