// Package background keeps a session's background processes: commands the
// bash tool started with run_in_background (or that the person sent to the
// background with Ctrl+B) and that outlive the call that started them. The
// Manager starts and supervises them, writes each one's output to a capped
// file in the data directory, and stops them all (each whole process group)
// when the session ends. Its two tools let the model read a process's new
// output (bash_output) and stop it (kill_shell), Claude Code's BashOutput
// and KillShell.
//
// The Manager also says what the model must hear of its processes: a short
// note once one has exited (Notes), and the list of those running, restated
// after a compaction (Restate).
package background

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools"
)

// Config configures a Manager. Zero fields take the defaults.
type Config struct {
	// Dir is the directory the output files go to; the Manager creates it
	// (mode 0700) and Close removes it. It should be the session's own.
	Dir string
	Settings
	// ReadLimit is the most output, in bytes, one read returns; 0 is
	// DefaultReadLimit.
	ReadLimit int
	// KillGrace is how long a stopped process has between SIGTERM and
	// SIGKILL; 0 is two seconds.
	KillGrace time.Duration
}

// Manager is one session's background processes. It is safe for
// concurrent use.
type Manager struct {
	cfg     Config
	mu      sync.Mutex
	procs   []*proc // in the order they started
	next    int     // the next process's number
	closed  bool
	changes chan struct{}
	fg      []chan struct{} // running foreground commands' detach channels
}

// proc is one background process.
type proc struct {
	id, command string
	session     string    // the conversation whose call started it ("" outside one)
	cmd         *exec.Cmd // set with pid once started, under Manager.mu
	pid         int       // its process group's id; 0 before it started
	log         *logFile
	started     time.Time
	done        chan struct{} // closed once the process is reaped
	// set before done is closed:
	exitCode int // -1: killed by a signal
	ended    time.Time
	guard    string // what the sandbox's guard said after the end
	// under Manager.mu:
	killed bool  // stopped by kill_shell, the person or the session's end
	read   int64 // the model's read offset in the output
	noted  bool  // the model was told of the exit (or stopped it itself)
}

// ErrClosed is returned by Start and Adopt after Close.
var ErrClosed = errors.New("the session's background processes are closed")

// New returns a Manager writing to cfg.Dir, which it creates with the
// first process (a session that starts none makes nothing). It does not
// fail today; the error is kept for a configuration it would refuse.
func New(cfg Config) (*Manager, error) {
	if cfg.MaxProcesses <= 0 {
		cfg.MaxProcesses = DefaultMaxProcesses
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = DefaultReadLimit
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 2 * time.Second
	}
	return &Manager{cfg: cfg, changes: make(chan struct{}, 1)}, nil
}

// Changes is signalled (without blocking: one pending signal at most)
// whenever a process starts, exits or is stopped, for a front-end that
// shows them. It has one reader.
func (m *Manager) Changes() <-chan struct{} { return m.changes }

func (m *Manager) changed() {
	select {
	case m.changes <- struct{}{}:
	default:
	}
}

// Start starts cmd, built but not started (its program, arguments, Dir,
// Env and SysProcAttr set, as a shell.Builder makes it) for the call of
// conversation session (tools.Call.Session: its model hears of the exit), with start (nil:
// cmd.Start; a sandbox's starts it in the session's network namespace), in
// the background as the session's next process, with its output (stdout and
// stderr merged) going to its capped file. command is the command line,
// for the lists. after, when not nil, is called once the process has
// ended, with its exit code (-1: killed by a signal); the text it returns
// is added to the exit's note (a sandbox's guard). Start returns the
// process's id ("bash_1"); it fails when the session runs its maximum of
// processes, after Close, or when the program cannot start.
func (m *Manager) Start(cmd *exec.Cmd, command, session string, start func(*exec.Cmd) error, after func(exitCode int) string) (string, error) {
	p, err := m.add(command, session, true)
	if err != nil {
		return "", err
	}
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = p.log, p.log // one pipe for both, in the order written
	setProcessGroup(cmd)
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if cmd.WaitDelay == 0 { // a job the command left holding the pipe does not hold the wait
		cmd.WaitDelay = 250 * time.Millisecond
	}
	if err := start(cmd); err != nil {
		m.drop(p)
		return "", fmt.Errorf("starting the command: %w", err)
	}
	m.started(p, cmd, cmd.Wait, after)
	return p.id, nil
}

// started records that p runs as cmd and supervises it; when Close came
// in between, the process is stopped at once (Close waits for it).
func (m *Manager) started(p *proc, cmd *exec.Cmd, wait func() error, after func(int) string) {
	m.mu.Lock()
	p.cmd, p.pid = cmd, cmd.Process.Pid
	closed := m.closed
	if closed {
		p.killed = true
	}
	m.mu.Unlock()
	go m.supervise(p, wait, after)
	if closed {
		killGroup(p.pid)
	}
	m.changed()
}

// Adopted is a foreground command handed over to the background while it
// runs (Ctrl+B).
type Adopted struct {
	// Cmd is the running command (started in a process group of its own).
	Cmd *exec.Cmd
	// Command is its command line.
	Command string
	// Redirect writes the command's output so far to w and makes its
	// further output go there, with no byte lost in between. It returns
	// how many of the bytes it wrote the model has seen already (the
	// call's result shows them): bash_output starts after them.
	Redirect func(w io.Writer) (seen int64)
	// Wait delivers cmd.Wait's error once the command has ended.
	Wait <-chan error
	// After is as in Start.
	After func(exitCode int) string
	// Started is when the command started (zero: now).
	Started time.Time
	// Session is the conversation whose call ran the command.
	Session string
}

// Adopt takes over a running foreground command and returns its id. The
// session's maximum does not apply: the person asked. It fails after
// Close, when the caller keeps the command.
func (m *Manager) Adopt(a Adopted) (string, error) {
	p, err := m.add(a.Command, a.Session, false)
	if err != nil {
		return "", err
	}
	seen := a.Redirect(p.log)
	m.mu.Lock()
	if !a.Started.IsZero() {
		p.started = a.Started
	}
	p.read = seen
	m.mu.Unlock()
	m.started(p, a.Cmd, func() error { return <-a.Wait }, a.After)
	return p.id, nil
}

// add makes the next process's entry and output file, checking the
// maximum when bounded.
func (m *Manager) add(command, session string, bounded bool) (*proc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if n := m.running(); bounded && n >= m.cfg.MaxProcesses {
		return nil, fmt.Errorf("%d background processes are running, the most a session may run at once (setting [background] max_processes): stop one with kill_shell first", n)
	}
	m.forgetOld()
	if err := os.MkdirAll(m.cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("background processes' directory: %w", err)
	}
	m.next++
	id := "bash_" + strconv.Itoa(m.next)
	log, err := createLog(filepath.Join(m.cfg.Dir, id+".log"), m.cfg.MaxOutputBytes)
	if err != nil {
		return nil, fmt.Errorf("the process's output file: %w", err)
	}
	p := &proc{id: id, command: command, session: session, log: log, started: time.Now(), done: make(chan struct{})}
	m.procs = append(m.procs, p)
	os.WriteFile(m.marker(id), nil, 0o600) // for CountRunning; best effort
	return p, nil
}

// drop removes p, which never started.
func (m *Manager) drop(p *proc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.procs = slices.DeleteFunc(m.procs, func(q *proc) bool { return q == p })
	p.ended = time.Now()
	close(p.done)
	os.Remove(m.marker(p.id))
	p.log.Close()
	os.Remove(filepath.Join(m.cfg.Dir, p.id+".log"))
}

// forgetOld drops the oldest ended processes whose exit the model heard of,
// beyond four times the maximum, with their output files, so that a long
// session's list stays bounded. m.mu is held.
func (m *Manager) forgetOld() {
	for len(m.procs) >= 4*m.cfg.MaxProcesses {
		i := slices.IndexFunc(m.procs, func(p *proc) bool { return p.exited() && p.noted })
		if i < 0 {
			return
		}
		p := m.procs[i]
		m.procs = slices.Delete(m.procs, i, i+1)
		p.log.Close()
		os.Remove(filepath.Join(m.cfg.Dir, p.id+".log"))
	}
}

// running counts the processes still running. m.mu is held.
func (m *Manager) running() int {
	n := 0
	for _, p := range m.procs {
		if !p.exited() {
			n++
		}
	}
	return n
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// supervise waits for p's end, kills what it left in its process group,
// and records how it ended.
func (m *Manager) supervise(p *proc, wait func() error, after func(int) string) {
	wait() // the exit status is in the ProcessState; the error says the same
	killLeftovers(p.pid)
	code := -1
	if st := p.cmd.ProcessState; st != nil {
		code = st.ExitCode()
	}
	var guard string
	if after != nil {
		guard = after(code)
	}
	m.mu.Lock()
	p.exitCode, p.ended, p.guard = code, time.Now(), guard
	close(p.done)
	m.mu.Unlock()
	os.Remove(m.marker(p.id))
	m.changed()
}

// find returns process id, nil when there is none.
func (m *Manager) find(id string) *proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.procs {
		if p.id == id {
			return p
		}
	}
	return nil
}

// Running returns how many processes are running.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running()
}

// Status is what is known of one process: the front-ends' neutral type.
type Status = tools.Process

// List returns every process the session knows, in the order they
// started.
func (m *Manager) List() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.procs))
	for _, p := range m.procs {
		out = append(out, p.status())
	}
	return out
}

// status reads p. Manager.mu is held.
func (p *proc) status() Status {
	s := Status{ID: p.id, Command: p.command, Started: p.started, Running: !p.exited(), Stopped: p.killed}
	s.PID = p.pid
	if !s.Running {
		s.ExitCode, s.Ended = p.exitCode, p.ended
	}
	s.OutputBytes = p.log.Total()
	s.Unread = max(s.OutputBytes-p.read, 0)
	return s
}

// Tail returns the last n lines of process id's output, for people: it
// does not move the model's read offset. ok is false when there is no
// such process.
func (m *Manager) Tail(id string, n int) (text string, ok bool) {
	p := m.find(id)
	if p == nil {
		return "", false
	}
	c, err := p.log.ReadFrom(0, m.cfg.ReadLimit)
	if err != nil {
		return err.Error(), true
	}
	return lastLines(c.data, n), true
}

// Stop stops process id: SIGTERM to its process group, SIGKILL after the
// grace period, and returns once it has ended, or once ctx is cancelled
// (after SIGKILL). ok is false when there is no such process; stopping one
// that has ended does nothing.
func (m *Manager) Stop(ctx context.Context, id string) (Status, bool) {
	p := m.find(id)
	if p == nil {
		return Status{}, false
	}
	m.stop(ctx, []*proc{p})
	m.mu.Lock()
	defer m.mu.Unlock()
	return p.status(), true
}

// stop stops ps, all at once, and waits for their ends, or for ctx's
// cancellation, which kills them at once.
func (m *Manager) stop(ctx context.Context, ps []*proc) {
	var live []*proc
	var pids []int
	m.mu.Lock()
	for _, p := range ps {
		if !p.exited() {
			p.killed = true
			live, pids = append(live, p), append(pids, p.pid)
		}
	}
	m.mu.Unlock()
	for _, pid := range pids {
		terminateGroup(pid)
	}
	grace := time.NewTimer(m.cfg.KillGrace)
	defer grace.Stop()
	killAll := func() {
		for _, pid := range pids {
			killGroup(pid)
		}
	}
	for _, p := range live {
		select {
		case <-p.done:
			continue
		case <-grace.C:
		case <-ctx.Done():
		}
		killAll()
		break
	}
	for _, p := range live {
		select {
		case <-p.done:
		case <-ctx.Done():
			return
		}
	}
}

// Close stops every running process (each whole process group, SIGTERM
// then SIGKILL after the grace period), waits for them, and removes the
// output files and their directory. Later Starts fail with ErrClosed.
// Closing twice does nothing more.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	ps := slices.Clone(m.procs)
	m.mu.Unlock()
	// SIGKILL ends them all within the grace period; a process stuck in
	// the kernel does not hold the agent's exit beyond a few seconds more.
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.KillGrace+5*time.Second)
	defer cancel()
	m.stop(ctx, ps)
	for _, p := range ps {
		p.log.Close()
	}
	m.changed()
	return os.RemoveAll(m.cfg.Dir)
}

// Foreground registers a running foreground command that the person may
// send to the background (SendToBackground): detach is closed when they
// do; release unregisters it and must be called once the command ended.
func (m *Manager) Foreground() (detach <-chan struct{}, release func()) {
	ch := make(chan struct{})
	m.mu.Lock()
	m.fg = append(m.fg, ch)
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.fg = slices.DeleteFunc(m.fg, func(c chan struct{}) bool { return c == ch })
	}
}

// SendToBackground sends every running foreground command of the session
// to the background (the person's Ctrl+B) and returns how many it sent.
func (m *Manager) SendToBackground() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.fg)
	for _, ch := range m.fg {
		close(ch)
	}
	m.fg = nil
	return n
}

// runningSuffix names the empty file that marks a running process in the
// output directory, for CountRunning in another process (agent doctor).
const runningSuffix = ".running"

func (m *Manager) marker(id string) string { return filepath.Join(m.cfg.Dir, id+runningSuffix) }

// CountRunning returns how many processes a Manager writing to dir has
// running, from the marks it keeps there; 0 when dir cannot be read.
func CountRunning(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), runningSuffix) {
			n++
		}
	}
	return n
}

// Reserve makes the ids given from now on greater than bash_N: a resumed
// conversation's history names processes of an earlier run up to bash_N,
// which a new process must not be taken for.
func (m *Manager) Reserve(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = max(m.next, n)
}
