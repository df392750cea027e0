//go:build unix

package background

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

// hangLimit bounds every wait of these tests: passing it is a failure,
// never a way to synchronise.
const hangLimit = 30 * time.Second

func newManager(t *testing.T, s Settings) *Manager {
	t.Helper()
	m, err := New(Config{Dir: filepath.Join(t.TempDir(), "bg"), Settings: s, KillGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func start(t *testing.T, m *Manager, command string) string {
	t.Helper()
	id, err := m.Start(exec.Command("bash", "-c", command), command, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// waitUntil waits, on the Manager's change signals, until ok holds.
func waitUntil(t *testing.T, m *Manager, what string, ok func() bool) {
	t.Helper()
	deadline := time.NewTimer(hangLimit)
	defer deadline.Stop()
	for !ok() {
		select {
		case <-m.Changes():
		case <-deadline.C:
			t.Fatalf("%s did not happen within %v", what, hangLimit)
		}
	}
}

// poll checks ok every 10 ms until it holds: for what the Manager does not
// signal (output, a file a command writes).
func poll(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, hangLimit)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing
	}
}

func status(m *Manager, id string) Status {
	for _, s := range m.List() {
		if s.ID == id {
			return s
		}
	}
	return Status{}
}

func ended(m *Manager, id string) func() bool { return func() bool { return !status(m, id).Running } }

func call(t *testing.T, tool tools.Tool, args map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tool.Run(context.Background(), tools.Call{Args: raw})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAProcessThatExitsByItselfIsToldOnceWithItsExitCode(t *testing.T) {
	m := newManager(t, Settings{})
	id := start(t, m, "echo built; exit 3")
	waitUntil(t, m, "the exit", ended(m, id))
	note := m.Notes("")
	if !strings.Contains(note, id+" (`echo built; exit 3`) exited with exit code 3") || !strings.Contains(note, "unread") {
		t.Errorf("the note says %q", note)
	}
	if again := m.Notes(""); again != "" {
		t.Errorf("the exit was told twice: %q", again)
	}
}

func TestBashOutputReturnsOnlyNewOutputAndTheExitCode(t *testing.T) {
	m := newManager(t, Settings{})
	out := Tools(m)[0]
	dir := t.TempDir()
	gate := filepath.Join(dir, "go")
	id := start(t, m, "echo first; while [ ! -e "+gate+" ]; do sleep 0.01; done; echo second; echo ERROR bad; exit 1")
	poll(t, "the first line", func() bool { return status(m, id).OutputBytes >= 6 })
	res := call(t, out, map[string]any{"bash_id": id})
	if !strings.Contains(res.Content, "is running") || !strings.Contains(res.Content, "first") {
		t.Fatalf("first read: %q", res.Content)
	}
	os.WriteFile(gate, nil, 0o600)
	waitUntil(t, m, "the exit", ended(m, id))
	res = call(t, out, map[string]any{"bash_id": id, "filter": "^ERROR"})
	if strings.Contains(res.Content, "first") || strings.Contains(res.Content, "second") || !strings.Contains(res.Content, "ERROR bad") {
		t.Errorf("second read with a filter: %q", res.Content)
	}
	if !strings.Contains(res.Content, "exited with exit code 1") || res.Meta[tools.MetaExitCode] != 1 {
		t.Errorf("the end is not reported: %q %v", res.Content, res.Meta)
	}
	if note := m.Notes(""); note != "" {
		t.Errorf("the model saw the end through bash_output, yet a note says %q", note)
	}
	if res = call(t, out, map[string]any{"bash_id": id}); !strings.Contains(res.Content, "(no new output)") {
		t.Errorf("a third read: %q", res.Content)
	}
	if res = call(t, out, map[string]any{"bash_id": id, "filter": "("}); !res.IsError {
		t.Errorf("a bad filter is not an error: %q", res.Content)
	}
	if res = call(t, out, map[string]any{"bash_id": "bash_99"}); !res.IsError || !strings.Contains(res.Content, id) {
		t.Errorf("an unknown id: %q", res.Content)
	}
}

func TestKillShellStopsTheWholeProcessGroup(t *testing.T) {
	m := newManager(t, Settings{})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	id := start(t, m, "sleep 600 & echo $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait")
	var child int
	poll(t, "the child's pid", func() bool {
		b, err := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && child > 0
	})
	res := call(t, Tools(m)[1], map[string]any{"shell_id": id})
	if res.IsError || !strings.Contains(res.Content, id+" was stopped") {
		t.Fatalf("kill_shell: %q", res.Content)
	}
	// SIGKILL is delivered asynchronously: the child's end is polled for.
	poll(t, "the end of the command's child "+strconv.Itoa(child), func() bool { return !alive(child) })
	if st := status(m, id); st.Running || !st.Stopped {
		t.Errorf("status after kill_shell: %+v", st)
	}
	if note := m.Notes(""); note != "" {
		t.Errorf("the model stopped it itself, yet a note says %q", note)
	}
}

func TestCloseStopsEveryProcessAndRemovesTheOutputFiles(t *testing.T) {
	m := newManager(t, Settings{})
	a := start(t, m, "exec sleep 600")
	b := start(t, m, "trap '' TERM; while :; do sleep 0.05; done") // ignores SIGTERM: SIGKILL after the grace
	pids := []int{status(m, a).PID, status(m, b).PID}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if _, err := os.Stat(m.cfg.Dir); !os.IsNotExist(err) {
		t.Errorf("the output directory is still there: %v", err)
	}
	if _, err := m.Start(exec.Command("true"), "true", "", nil, nil); err != ErrClosed {
		t.Errorf("Start after Close: %v", err)
	}
}

func TestASessionRunsAtMostItsMaximumOfProcesses(t *testing.T) {
	m := newManager(t, Settings{MaxProcesses: 2})
	start(t, m, "exec sleep 600")
	second := start(t, m, "exec sleep 600")
	_, err := m.Start(exec.Command("bash", "-c", "true"), "true", "", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "max_processes") {
		t.Fatalf("a third process: %v", err)
	}
	m.Stop(context.Background(), second)
	start(t, m, "true") // room again
}

func TestRestateListsOnlyTheRunningProcesses(t *testing.T) {
	m := newManager(t, Settings{})
	server := start(t, m, "exec sleep 600")
	done := start(t, m, "true")
	waitUntil(t, m, "the short one's exit", ended(m, done))
	r := m.Restate("")
	if !strings.Contains(r, server+" (pid ") || !strings.Contains(r, "exec sleep 600") || strings.Contains(r, done) {
		t.Errorf("restated: %q", r)
	}
}

// alive reports whether pid runs (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}

func TestAProcessWritingPastTheCapKeepsTheNewestOutputInACappedFile(t *testing.T) {
	m := newManager(t, Settings{MaxOutputBytes: 1 << 20})
	id := start(t, m, "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END")
	waitUntil(t, m, "the exit", ended(m, id))
	fi, err := os.Stat(filepath.Join(m.cfg.Dir, id+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<20 {
		t.Errorf("the output file holds %d bytes, past its cap of %d", fi.Size(), 1<<20)
	}
	res := call(t, Tools(m)[0], map[string]any{"bash_id": id})
	if !strings.HasSuffix(res.Content, "x\nEND\n") || !strings.Contains(res.Content, "of output before this was dropped") {
		t.Errorf("the read does not end with the newest output or say what was dropped: %q", res.Content[:min(len(res.Content), 200)])
	}
	if len(res.Content) > DefaultReadLimit+500 {
		t.Errorf("one read returned %d bytes, past the read limit %d", len(res.Content), DefaultReadLimit)
	}
}

// BenchmarkBashOutput is one bash_output call reading the newest 30,000
// bytes of a process that wrote 1 MiB (its offset put back each time).
//
//	go test -run '^$' -bench BashOutput ./tools/background/
func BenchmarkBashOutput(b *testing.B) {
	m, err := New(Config{Dir: filepath.Join(b.TempDir(), "bg")})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	id, err := m.Start(exec.Command("bash", "-c", "head -c 1048576 /dev/urandom | base64"), "big", "", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := m.find(id)
	<-p.done
	out := Tools(m)[0]
	raw, _ := json.Marshal(map[string]any{"bash_id": id})
	for b.Loop() {
		m.mu.Lock()
		p.read = 0
		m.mu.Unlock()
		if res, err := out.Run(context.Background(), tools.Call{Args: raw}); err != nil || res.IsError {
			b.Fatal(err, res.Content)
		}
	}
}

// A character whose bytes the process wrote on both sides of a read comes
// whole in the next read, not as two replacement characters.
func TestACharacterSplitBetweenTwoReadsIsReadWhole(t *testing.T) {
	m := newManager(t, Settings{})
	out := Tools(m)[0]
	gate := filepath.Join(t.TempDir(), "gate")
	id := start(t, m, `printf 'caf\xc3'; while [ ! -e `+gate+` ]; do sleep 0.01; done; printf '\xa9 ok\n'`)
	poll(t, "the first bytes", func() bool { return status(m, id).OutputBytes >= 4 })
	first := call(t, out, map[string]any{"bash_id": id})
	os.WriteFile(gate, nil, 0o600)
	waitUntil(t, m, "the exit", ended(m, id))
	second := call(t, out, map[string]any{"bash_id": id})
	_, a, _ := strings.Cut(first.Content, "\n")
	_, b, _ := strings.Cut(second.Content, "\n")
	if got := a + b; !strings.Contains(got, "café ok") {
		t.Errorf("the two reads give %q then %q: é is lost", a, b)
	}
}

// A filter looks for lines in everything new the output file holds: a
// matching line followed by more than one read's worth of other output is
// found, not skipped unseen with the rest.
func TestAFilterFindsAMatchingLineFollowedByMuchOtherOutput(t *testing.T) {
	m := newManager(t, Settings{})
	id := start(t, m, "echo 'ERROR: the build broke'; for i in $(seq 5000); do echo \"compiled module $i of 5000\"; done")
	waitUntil(t, m, "the exit", ended(m, id))
	res := call(t, Tools(m)[0], map[string]any{"bash_id": id, "filter": "^ERROR"})
	if !strings.Contains(res.Content, "ERROR: the build broke") {
		t.Errorf("the filtered read misses the one matching line: %q", res.Content)
	}
	// What a filter keeps is bounded as a read is: the newest lines.
	many := start(t, m, "for i in $(seq 5000); do echo \"ERROR $i\"; done")
	waitUntil(t, m, "the exit", ended(m, many))
	res = call(t, Tools(m)[0], map[string]any{"bash_id": many, "filter": "^ERROR"})
	if len(res.Content) > DefaultReadLimit+500 || !strings.HasSuffix(res.Content, "\nERROR 5000\n") || !strings.Contains(res.Content, "of matching lines skipped") {
		t.Errorf("a filtered read of many matching lines returns %d bytes, ending %q", len(res.Content), res.Content[max(len(res.Content)-40, 0):])
	}
}

// Filtering all the new output costs the pattern's size times the
// output's: a pattern past the bound is refused, and a cancelled call
// stops filtering and leaves the output unread.
func TestAFilterIsBoundedAndACancelledFilteredReadLeavesTheOutputUnread(t *testing.T) {
	m := newManager(t, Settings{})
	out := Tools(m)[0]
	id := start(t, m, "for i in $(seq 5000); do echo \"line $i\"; done")
	waitUntil(t, m, "the exit", ended(m, id))
	if res := call(t, out, map[string]any{"bash_id": id, "filter": strings.Repeat("(a|b)*", 200) + "c"}); !res.IsError {
		t.Errorf("a 1,200-byte filter is not refused: %q", res.Content[:min(len(res.Content), 200)])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw, _ := json.Marshal(map[string]any{"bash_id": id, "filter": "line 4"})
	if res, _ := out.Run(ctx, tools.Call{Args: raw}); !res.IsError {
		t.Errorf("a cancelled filtered read: %q", res.Content[:min(len(res.Content), 200)])
	}
	if st := status(m, id); st.Unread != st.OutputBytes {
		t.Errorf("the cancelled read consumed output: %d of %d unread", st.Unread, st.OutputBytes)
	}
}

func TestConformance(t *testing.T) {
	m := newManager(t, Settings{})
	out, kill := Tools(m)[0], Tools(m)[1]
	toolstest.Run(t, toolstest.Suite{Tool: out,
		SchemaInvalid: []string{`{}`, `{"bash_id":""}`, `{"bash_id":1}`, `{"bash_id":"bash_1","filter":3}`, `{"bash_id":"bash_1","other":true}`},
		BadArgs:       []string{`{"bash_id":"bash_9"}`, `{"bash_id":"bash_1","filter":"("}`}})
	toolstest.Run(t, toolstest.Suite{Tool: kill,
		SchemaInvalid: []string{`{}`, `{"shell_id":""}`, `{"shell_id":1}`},
		BadArgs:       []string{`{"shell_id":"bash_9"}`}})
}

// One line longer than a read, of characters of several bytes, matched by
// a filter: what the read shows of it is valid UTF-8.
func TestAFilteredReadOfAHugeLineIsValidText(t *testing.T) {
	m := newManager(t, Settings{})
	id := start(t, m, "for i in $(seq 20000); do printf 'é'; done; echo")
	waitUntil(t, m, "the exit", ended(m, id))
	res := call(t, Tools(m)[0], map[string]any{"bash_id": id, "filter": "é"})
	if !utf8.ValidString(res.Content) || !strings.HasSuffix(res.Content, "éé\n") {
		t.Errorf("the read is not valid text ending with the line's end: %q", res.Content[max(len(res.Content)-20, 0):])
	}
}

// A session that starts no background process makes no directory for
// them; the first process makes it, and Close removes it.
func TestTheDirectoryIsMadeWithTheFirstProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bg")
	m, err := New(Config{Dir: dir, KillGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("made before any process: %v", err)
	}
	id := start(t, m, "true")
	waitUntil(t, m, "the process's end", ended(m, id))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("after the first process: %v", err)
	}
	m.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("left after Close: %v", err)
	}
}
