package sessions_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// writerEnv, when set in a test binary's environment, makes TestMain run
// writerMain instead of the tests: "DB|SHARED_ID|FRESH_DB|NAME".
const writerEnv = "SESSIONS_TEST_WRITER"

// writes is how many messages each writer process appends to its own
// session and to the shared one.
const writes = 200

func TestMain(m *testing.M) {
	if spec := os.Getenv(leaverEnv); spec != "" {
		if err := leaverMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, "leaver:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(writerEnv); spec != "" {
		if err := writerMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writerMain is one of two processes writing the same databases at once. In
// db it creates its own session and appends writes messages to it and to
// the shared session, alternating; it also opens freshDB, which the other
// process may be creating and migrating at the same moment, and creates a
// session there. It starts when a line arrives on stdin.
func writerMain(spec string) error {
	f := strings.Split(spec, "|")
	db, shared, freshDB, name := f[0], f[1], f[2], f[3]
	ctx := context.Background()
	// Start together: wait for the parent's go on stdin.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start: %w", err)
	}

	fresh, err := sessions.Open(ctx, freshDB)
	if err != nil {
		return err
	}
	if _, err := fresh.Create(ctx, sessions.NewSession{Dir: "/fresh", Title: name}); err != nil {
		return err
	}
	if err := fresh.Close(); err != nil {
		return err
	}

	s, err := sessions.Open(ctx, db)
	if err != nil {
		return err
	}
	defer s.Close()
	own, err := s.Create(ctx, sessions.NewSession{Dir: "/own", Title: name})
	if err != nil {
		return err
	}
	mine, ours := s.Recorder(own.ID), s.Recorder(shared)
	for i := range writes {
		// A pause as between the messages of a real turn: a writer in a
		// tight loop takes the lock again before the other's busy handler
		// wakes up, so the two would mostly write in bursts.
		time.Sleep(500 * time.Microsecond)
		if err := mine.AppendMessage(ctx, userMsg(fmt.Sprint(name, " ", i)), zeroUsage); err != nil {
			return err
		}
		if err := ours.AppendMessage(ctx, userMsg(fmt.Sprint(name, " ", i)), zeroUsage); err != nil {
			return err
		}
	}
	return nil
}

func TestTwoProcessesWriteAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	ctx := context.Background()
	dir := t.TempDir()
	dbPath, freshPath := filepath.Join(dir, "agent.db"), filepath.Join(dir, "fresh", "agent.db")
	s := openAt(t, dbPath)
	shared := create(t, s, "/shared", "shared")

	names := []string{"one", "two"}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	var starts []io.WriteCloser
	for _, name := range names {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+strings.Join([]string{dbPath, shared.ID, freshPath, name}, "|"))
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		start, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs, starts = append(cmds, cmd), append(outs, out), append(starts, start)
	}
	for _, start := range starts {
		io.WriteString(start, "go\n")
		start.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %s: %v\n%s", names[i], err, outs[i])
		}
	}
	if t.Failed() {
		return
	}

	// The shared session has every message of both, numbered 1..2*writes,
	// each writer's in its own order.
	recs, err := s.MessageRecords(ctx, shared.ID)
	must(t, err)
	if len(recs) != 2*writes {
		t.Fatalf("shared session has %d messages, want %d", len(recs), 2*writes)
	}
	next := map[string]int{}
	switches, last := 0, ""
	for i, r := range recs {
		if r.Seq != i+1 {
			t.Fatalf("message %d has seq %d", i, r.Seq)
		}
		var name string
		var n int
		fmt.Sscan(r.Message.Text(), &name, &n)
		if n != next[name] {
			t.Fatalf("message %d is %q, want %s %d", r.Seq, r.Message.Text(), name, next[name])
		}
		next[name]++
		if name != last {
			switches, last = switches+1, name
		}
	}
	t.Logf("the writers took turns %d times in the shared session", switches)
	list, err := s.List(ctx, sessions.ListOptions{Dir: "/own"})
	must(t, err)
	if len(list) != 2 {
		t.Fatalf("%d own sessions, want 2", len(list))
	}
	for _, l := range list {
		if l.Messages != writes {
			t.Errorf("session of %s has %d messages, want %d", l.Title, l.Messages, writes)
		}
	}
	fresh := openAt(t, freshPath)
	if list, err := fresh.List(ctx, sessions.ListOptions{}); err != nil || len(list) != 2 {
		t.Errorf("fresh database: %d sessions, %v; want 2", len(list), err)
	}
	if v := pragma(t, fresh, "user_version"); v != fmt.Sprint(sessions.Migrations()) {
		t.Errorf("fresh database at version %s", v)
	}
}
