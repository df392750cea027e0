package lsp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/scriptedlsp"
)

// processMark is an environment entry that marks the servers test t
// starts: its name and this test process's pid, so that the same test run
// by another suite beside this one (another checkout's go test) is not
// taken for ours.
func processMark(t *testing.T) string {
	return fmt.Sprintf("LSPHOSTILE_MARK=%d-%s", os.Getpid(), t.Name())
}

// processesWith are the pids of the processes whose environment holds kv.
func processesWith(t *testing.T, kv string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []string
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, []byte("\x00"+kv+"\x00")) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !bytes.Contains(stat, []byte(") Z ")) { // a zombie is gone, waiting for its parent
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func TestNoServerProcessOutlivesClose(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, mode := range []string{scriptedlsp.ModeNormal, scriptedlsp.ModeHang, scriptedlsp.ModeHangAfterInit, scriptedlsp.ModeSlow, scriptedlsp.ModeCrash, scriptedlsp.ModeNoExit} {
		t.Run(mode, func(t *testing.T) {
			mark := processMark(t)
			srv := scripted(mode)
			srv.Env = append(srv.Env, mark)
			m, dir := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, 200*time.Millisecond, srv)
			m.Open("a.txt")
			writeFiles(t, dir, map[string]string{"a.txt": "ERROR: x\n"})
			m.Change(context.Background(), []string{"a.txt"})
			m.Open("a.txt") // a restart after the crash
			if mode == scriptedlsp.ModeHangAfterInit && len(processesWith(t, mark)) == 0 {
				t.Fatal("the running server is not seen")
			}
			start := time.Now()
			m.Close()
			if took := time.Since(start); took > closeWait+budgetSlack {
				t.Errorf("Close took %s", took)
			}
			if left := processesWith(t, mark); len(left) > 0 {
				t.Errorf("processes left after Close: %v", left)
			}
		})
	}
}

// A server whose start ends as the session closes is shut down before
// Close returns.
func TestAServerStartingWhenTheSessionClosesDoesNotOutliveIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	mark := processMark(t)
	log := filepath.Join(t.TempDir(), "log")
	srv := scripted(scriptedlsp.ModeNoExit, scriptedlsp.Log(log)) // its shutdown takes closeWait
	srv.Env = append(srv.Env, mark)
	m, _ := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, srv)
	m.Open("a.txt")
	// Hold the manager while the server initializes: its start ends, and
	// waits for the manager, as Close begins.
	m.mu.Lock()
	for deadline := time.Now().Add(generous); ; {
		if data, _ := os.ReadFile(log); bytes.Contains(data, []byte("initialized\n")) {
			break
		}
		if time.Now().After(deadline) {
			m.mu.Unlock()
			t.Fatal("the server was never initialized")
		}
		time.Sleep(5 * time.Millisecond) // polls the server's log: no event reaches the test otherwise
	}
	conns, starting := m.closing()
	m.mu.Unlock()
	m.finishClose(conns, starting)
	if left := processesWith(t, mark); len(left) > 0 {
		t.Errorf("processes left after Close: %v", left)
	}
}

// An edit of a subagent still running as the session closes starts no
// server again.
func TestNoServerStartsAfterClose(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	m, _ := scriptedManager(t, map[string]string{"a.txt": "ok\n"}, generous, scripted(scriptedlsp.ModeNormal, scriptedlsp.Log(log)))
	m.Open("a.txt")
	m.mu.Lock()
	var s *server
	for _, srv := range m.servers {
		s = srv
	}
	m.mu.Unlock()
	if c := m.ready(context.Background(), s, time.Now().Add(generous)); c == nil {
		t.Fatal("the server did not start")
	}
	m.Close()
	// The edit, past Change's first look, waits for its server.
	if c := m.ready(context.Background(), s, time.Now().Add(generous)); c != nil {
		t.Error("a closed manager gave a server")
	}
	m.mu.Lock()
	restarts, starting := s.restarts, s.starting
	m.mu.Unlock()
	if restarts != 0 || starting != nil {
		t.Errorf("after Close the server was started again (%d restarts, starting %v)", restarts, starting != nil)
	}
	if data, _ := os.ReadFile(log); bytes.Count(data, []byte("initialize ")) != 1 {
		t.Errorf("the server log holds:\n%s", data)
	}
}
