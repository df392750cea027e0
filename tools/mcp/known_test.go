//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// gate makes a FIFO that a test server opens before it speaks; open lets
// it go on (it blocks until the server opened its end).
func gate(t *testing.T) (env string, open func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return serverGate + "=" + path, func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.Close()
	}
}

// definitions is the tools a manager offers, as the model sees them.
func definitions(m *Manager) []tools.Definition {
	var defs []tools.Definition
	for _, t := range m.Tools() {
		defs = append(defs, t.Definition())
	}
	return defs
}

// sameDefinitions reports whether a and b offer the same tools as the
// model reads them: names, descriptions, schemas and effects, in order.
func sameDefinitions(a, b []tools.Definition) bool {
	type seen struct {
		Name, Description string
		Schema            json.RawMessage
		ReadOnly          bool
		Effects           tools.Effects
	}
	view := func(defs []tools.Definition) []seen {
		out := make([]seen, len(defs))
		for i, d := range defs {
			out[i] = seen{d.Name, d.Description, d.Schema, d.ReadOnly, d.Effects}
		}
		return out
	}
	return reflect.DeepEqual(view(a), view(b))
}

// runOnce starts cfg with cache as its CacheDir, waits for it and returns
// the tools it offered once running.
func runOnce(t *testing.T, cache string, cfg Config) []tools.Definition {
	t.Helper()
	m := NewManager([]Config{cfg}, Options{CacheDir: cache})
	m.Start(t.Context())
	m.Wait(t.Context())
	defer m.Close()
	if st := m.Status()[0]; st.State != StateRunning {
		t.Fatalf("first run: %s (%s)", st.State, st.Error)
	}
	return definitions(m)
}

// A server whose definition ran before is offered by its last tool list
// while it starts, so that the first request's tools are those of the
// later ones; a call of one of its tools waits for it; and when it arrives
// with the same list nothing changes and the model is told nothing.
func TestAServerStillStartingIsOfferedByItsKnownList(t *testing.T) {
	cache := t.TempDir()
	cfg := stdioServer(t, "slow", serverTools+"=echo,peek")
	first := runOnce(t, cache, cfg)

	env, open := gate(t)
	cfg.Env = append(cfg.Env, env) // not in the definition's key: the env table's names are
	var changes sync.WaitGroup
	changes.Add(1)
	m := NewManager([]Config{cfg}, Options{CacheDir: cache, OnChange: sync.OnceFunc(changes.Done)})
	m.Start(t.Context())
	t.Cleanup(func() { m.Close() })
	if st := m.Status()[0]; st.State != StateStarting {
		t.Fatalf("the gated server is %s, want starting", st.State)
	}
	if got := definitions(m); !sameDefinitions(got, first) {
		t.Fatalf("while it starts the tools are %+v, want those of its last run %+v", got, first)
	}
	m.AwaitUnknown(t.Context()) // its list is known: this does not wait for it
	m.Baseline()

	type answer struct {
		res tools.Result
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := findTool(t, m, "mcp__slow__peek").Run(t.Context(), tools.Call{Args: json.RawMessage(`{"text":"hi"}`)})
		answered <- answer{res, err}
	}()
	open()
	a := <-answered
	if a.err != nil || a.res.IsError || a.res.Content != "peek: hi" {
		t.Fatalf("the call while it started answered %q (error %v, %v), want peek: hi", a.res.Content, a.res.IsError, a.err)
	}
	changes.Wait()
	if got := definitions(m); !sameDefinitions(got, first) {
		t.Errorf("once it runs the tools are %+v, want the same %+v", got, first)
	}
	if n := m.Notes(); n != "" {
		t.Errorf("notes %q, want none: nothing changed for the model", n)
	}
}

// A server that arrives with another list than its known one changes the
// tools, and the model is told what changed; one that fails to start takes
// its known tools away, a call of one of them is an error result, and the
// model is told.
func TestAServerThatArrivesDifferentOrNotAtAllIsNoted(t *testing.T) {
	cache := t.TempDir()
	cfg := stdioServer(t, "srv", serverTools+"=echo,peek")
	runOnce(t, cache, cfg)

	changed := make(chan struct{}, 8)
	onChange := func() { changed <- struct{}{} }
	t.Run("another list", func(t *testing.T) {
		c := cfg
		env, open := gate(t)
		c.Env = append(slices.Clone(cfg.Env), env, serverTools+"=echo,extra")
		m := NewManager([]Config{c}, Options{CacheDir: cache, OnChange: onChange})
		m.Start(t.Context())
		t.Cleanup(func() { m.Close() })
		m.Baseline()
		open()
		m.Wait(t.Context())
		names := toolNames(m.servers[0].tools)
		if !slices.Equal(names, []string{"mcp__srv__echo", "mcp__srv__extra"}) {
			t.Fatalf("tools %q", names)
		}
		n := m.Notes()
		if !strings.Contains(n, "added mcp__srv__extra") || !strings.Contains(n, "removed mcp__srv__peek") {
			t.Errorf("notes %q, want the tool added and the one removed", n)
		}
		if again := m.Notes(); again != "" {
			t.Errorf("notes said twice: %q", again)
		}
	})
	t.Run("no start", func(t *testing.T) {
		c := cfg
		c.Env = append(slices.Clone(cfg.Env), serverTools+"=echo,peek")
		m := NewManager([]Config{c}, Options{CacheDir: cache})
		_ = definitions(m) // offered before it starts
		m.servers[0].cfg.Command = filepath.Join(t.TempDir(), "gone")
		if len(m.Tools()) == 0 {
			t.Fatal("no tools offered from the known list")
		}
		m.Baseline()
		m.Start(t.Context())
		t.Cleanup(func() { m.Close() })
		res, err := m.servers[0].provisional[0].Run(t.Context(), tools.Call{Args: json.RawMessage(`{}`)})
		if err != nil || !res.IsError || !strings.Contains(res.Content, "did not start") {
			t.Errorf("a call of a server that did not start: %q (error %v, %v)", res.Content, res.IsError, err)
		}
		if len(m.Tools()) != 0 {
			t.Errorf("tools %d, want none once it failed", len(m.Tools()))
		}
		if n := m.Notes(); !strings.Contains(n, "MCP server srv did not start") {
			t.Errorf("notes %q", n)
		}
	})
}

// A call of a tool of a server still starting stops waiting when its
// context ends.
func TestACallWaitingForAServerIsCancellable(t *testing.T) {
	cache := t.TempDir()
	cfg := stdioServer(t, "slow")
	runOnce(t, cache, cfg)
	env, _ := gate(t) // never opened: the server never speaks
	cfg.Env = append(cfg.Env, env)
	m := NewManager([]Config{cfg}, Options{CacheDir: cache})
	m.Start(t.Context())
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := findTool(t, m, "mcp__slow__echo").Run(ctx, tools.Call{Args: json.RawMessage(`{}`)}); err != context.Canceled {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// A server never seen before has no known list: AwaitUnknown waits for it
// (a headless run's first request carries its tools), and its arrival
// after the first request is a note.
func TestAwaitUnknownWaitsForNewServersOnly(t *testing.T) {
	env, open := gate(t)
	m := NewManager([]Config{stdioServer(t, "new", env)}, Options{CacheDir: t.TempDir()})
	m.Start(t.Context())
	t.Cleanup(func() { m.Close() })
	if len(m.Tools()) != 0 {
		t.Fatal("a server without a known list offered tools before it ran")
	}
	awaited := make(chan struct{})
	go func() { m.AwaitUnknown(t.Context()); close(awaited) }()
	select {
	case <-awaited:
		t.Fatal("AwaitUnknown returned before the new server ran")
	default:
	}
	m.Baseline()
	open()
	<-awaited
	if st := m.Status()[0]; st.State != StateRunning {
		t.Fatalf("server %s", st.State)
	}
	if n := m.Notes(); !strings.Contains(n, "MCP server new is running now") || !strings.Contains(n, "mcp__new__echo") {
		t.Errorf("notes %q", n)
	}
}

// A server's startup timeout counts from its own start: a server whose
// start comes after another one's timed out still has all of its own.
func TestStartupTimeoutCountsFromTheServersOwnStart(t *testing.T) {
	stuckEnv, _ := gate(t) // never opened: it times out
	stuck := stdioServer(t, "stuck", stuckEnv)
	stuck.StartupTimeout = 2 * time.Second
	timedOut := make(chan struct{})
	late := stdioServer(t, "late")
	late.StartupTimeout = 2 * time.Second
	late.Gate = func(ctx context.Context) (bool, string) {
		select { // starts only once the other one's timeout passed
		case <-timedOut:
			return true, ""
		case <-ctx.Done():
			return false, "cancelled"
		}
	}
	var once sync.Once
	m := NewManager([]Config{stuck, late}, Options{Warn: func(s string) {
		if strings.Contains(s, "MCP server stuck failed") {
			once.Do(func() { close(timedOut) })
		}
	}})
	m.Start(t.Context())
	t.Cleanup(func() { m.Close() })
	m.Wait(t.Context())
	st := m.Status()
	if st[0].State != StateFailed || !strings.Contains(st[0].Error, "did not start within 2s") {
		t.Errorf("stuck: %s (%s)", st[0].State, st[0].Error)
	}
	if st[1].State != StateRunning {
		t.Errorf("late: %s (%s), want running: its timeout starts with it", st[1].State, st[1].Error)
	}
}

// Close stops a server still starting at once: an agent done before its
// servers came up does not wait for their start.
func TestCloseStopsAServerStillStarting(t *testing.T) {
	env, _ := gate(t) // never opened
	cfg := stdioServer(t, "stuck", env)
	cfg.StartupTimeout = time.Hour
	m := NewManager([]Config{cfg}, Options{})
	m.Start(t.Context())
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // far beyond what stopping takes; the start's timeout is an hour
		t.Fatal("Close waited for a server still starting")
	}
}
