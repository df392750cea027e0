package sandbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-dev/agent/tools/shell"
)

// Sandbox starts commands under a Policy. It is safe for concurrent use.
// Close releases what it holds (the Landlock ruleset).
type Sandbox struct {
	policy Policy
	impl   platform
	// links caches the gitlinks of the working directory's index for the
	// git guard, listed again only when the index changes.
	links gitlinkCache
	// trees is what the git guard knows of the writable roots' directories.
	trees dirTrees
	// staleMu guards staleDone, closed when the removal of the commands'
	// temporary directories that agents killed before they could clean up
	// left has ended; nil until it begins, once, in the background: when
	// the set-up begins (Prepare) or at the first command, not at every
	// start (it reads the whole temporary directory). Close waits for it.
	staleMu   sync.Mutex
	staleDone chan struct{}
	// closed is set by Close: Prepare begins nothing after it.
	closed atomic.Bool
}

// platform is the operating system's side of a Sandbox.
type platform interface {
	// status says what confines commands; with full false it does not wait
	// for the namespace probe, so NetworkBy, ProtectedBy, Warnings and
	// UserNamespaces may be unset.
	status(full bool) Status
	build(shell.Spec) (*exec.Cmd, error)
	close() error
	// usage is what the commands have used of their bounds so far.
	usage() boundUsage
}

// boundUsage is what commands have used of the sandbox's bounds: how often
// a fork failed at the process bound (pids cgroup), and the temporary
// directory's free and total bytes (tmpOK when it is bounded).
type boundUsage struct {
	maxProcs       int
	pidsHits       int64
	tmpFree, tmpSz int64
	tmpOK          bool
}

// New returns a sandbox for p. On Linux the helper is the small program
// embedded in the agent (package helperbin), started from a sealed memfd,
// or where there is none the agent's own binary, started as
// /proc/self/exe. The kernel's support is looked
// up at once (a system call); namespaces are probed on first use, or now
// when the answer decides whether the policy can be enforced.
func New(p Policy) (*Sandbox, error) {
	if p.Dir == "" || !filepath.IsAbs(p.Dir) {
		return nil, fmt.Errorf("sandbox: the working directory %q is not an absolute path", p.Dir)
	}
	if p.Mode == "" {
		p.Mode = WorkspaceWrite
	}
	if p.TempDirs == nil {
		p.TempDirs = []string{"/tmp"}
	}
	for _, list := range [][]string{p.WritableRoots, p.TempDirs, p.Protected, p.Hidden} {
		for i, d := range list {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("sandbox: %q is not an absolute path", d)
			}
			list[i] = filepath.Clean(d)
		}
	}
	if later := p.ProtectedLater; later != nil {
		p.ProtectedLater = sync.OnceValue(func() []string {
			var out []string
			for _, d := range later() {
				if filepath.IsAbs(d) {
					out = append(out, filepath.Clean(d))
				}
			}
			return out
		})
	}
	p.Dir = filepath.Clean(p.Dir)
	p.git = readGitLayout(p.Dir)
	if p.TempSize > 0 && p.Mode == WorkspaceWrite {
		// Named now (commands' and hooks' TMPDIR), made at the first
		// command: a run that runs none makes nothing. The name is
		// random, as os.MkdirTemp's, and seen by no process before it
		// is made; Mkdir fails on anything already there.
		// Under the temporary directory's real path: macOS's seatbelt
		// matches real paths, and this one cannot be resolved before it
		// is made (/var/folders is /private/var/folders).
		base := os.TempDir()
		if real, err := filepath.EvalSymlinks(base); err == nil {
			base = real
		}
		d := filepath.Join(base, fmt.Sprintf("%s%d-%d", tempPrefix, os.Getpid(), rand.Uint64()))
		p.sessionTemp, p.TempDirs = d, []string{d}
		p.makeTemp = sync.OnceValue(func() error {
			if err := os.Mkdir(d, 0o700); err != nil {
				return fmt.Errorf("sandbox: making the commands' temporary directory: %w", err)
			}
			return nil
		})
	}
	s := &Sandbox{policy: p}
	if p.Mode == Off {
		s.impl = off{}
		return s, nil
	}
	s.impl = newPlatform(p)
	return s, nil
}

// Status says what confines commands here under the sandbox's policy, in
// full: on Linux it waits for the namespace probe that New started (a few
// milliseconds).
func (s *Sandbox) Status() Status { return s.status(true) }

// Brief is Status without waiting for the namespace probe: Mode, Network,
// Enforced and Reason are right, the other fields may be unset. The
// permission policy and the bash tool's description need no more.
func (s *Sandbox) Brief() Status { return s.status(false) }

func (s *Sandbox) status(full bool) Status {
	st := s.impl.status(full)
	st.Mode, st.Network = s.policy.Mode, s.policy.Network
	return st
}

// Prepare begins, in the background, what commands need and the sandbox
// has not made yet (on Linux the session's network namespace, the pids
// cgroup and the Landlock ruleset; whether namespaces work is learnt by the
// first command built with shell.Spec.BuildAgain as it starts, or by a
// probe, a helper process, for what comes first otherwise), and returns at
// once. Nothing needs it: the first Build, Status or Close makes what is
// missing, waiting for it. Call it when the cores are free, such as once
// the model's answer is streaming, so that the set-up neither delays the
// first request nor the first command. It does nothing after Close. The
// temporary directories dead agents left are looked for beside it.
func (s *Sandbox) Prepare() {
	if p, ok := s.impl.(interface{ prepare() }); ok {
		p.prepare()
	}
	if s.policy.sessionTemp != "" {
		s.removeStale()
	}
}

// Build is a shell.Builder: it returns the command that runs spec's
// command under the policy. When Status().Enforced is false the command
// runs unconfined: the permission policy must then have asked a person
// (see Status). An error says what failed to set up; nothing was run.
// On Linux, a spec with BuildAgain built while no probe has learnt
// whether namespaces work is built to learn it as it starts: it must be
// started with Start.
func (s *Sandbox) Build(spec shell.Spec) (*exec.Cmd, error) {
	if s.policy.sessionTemp != "" {
		s.removeStale() // not waited for: no command's directory is stale
		if err := s.policy.makeTemp(); err != nil {
			return nil, err
		}
	}
	return s.impl.build(spec)
}

// Start starts cmd, which Build or BuildBackground made: on Linux with the
// network off, in the session's network namespace, shared by its
// commands so that a server one starts on 127.0.0.1 is reachable from the
// next (see Status's NetworkBy); elsewhere as cmd.Start does. It returns
// cmd.Start's error; for a command built to learn whether namespaces work
// (see Build), an error wrapping shell.ErrBuildAgain when they do not, or
// were learnt meanwhile: nothing ran, and a command built again runs.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	if st, ok := s.impl.(interface{ start(*exec.Cmd) error }); ok {
		return st.start(cmd)
	}
	return cmd.Start()
}

// TempDir is the commands' own temporary directory (Policy.TempSize), for
// their TMPDIR; "" when they have none.
func (s *Sandbox) TempDir() string { return s.policy.sessionTemp }

// Close releases the sandbox's resources and removes the commands'
// temporary directory.
func (s *Sandbox) Close() error {
	s.closed.Store(true)
	err := s.impl.close()
	if s.policy.sessionTemp != "" {
		os.RemoveAll(s.policy.sessionTemp)
	}
	s.staleMu.Lock()
	done := s.staleDone
	s.staleMu.Unlock()
	if done != nil {
		<-done
	}
	return err
}

// removeStale begins, once, removing in the background the commands'
// temporary directories of agents that are gone (see Sandbox.staleDone),
// and returns at once. A command does not wait for it: under load,
// listing a temporary directory of a few hundred entries delayed a
// session's first command by up to a millisecond.
func (s *Sandbox) removeStale() {
	s.staleMu.Lock()
	defer s.staleMu.Unlock()
	if s.staleDone != nil || s.closed.Load() { // Close waits for what began before it
		return
	}
	done := make(chan struct{})
	s.staleDone = done
	go func() {
		defer close(done)
		removeStale(filepath.Dir(s.policy.sessionTemp), tempPrefix, os.RemoveAll)
	}()
}

// off runs commands unconfined: the Off mode.
type off struct{}

func (off) status(bool) Status                       { return Status{Enforced: false} }
func (off) build(spec shell.Spec) (*exec.Cmd, error) { return shell.BashCommand(spec) }
func (off) close() error                             { return nil }
func (off) usage() boundUsage                        { return boundUsage{} }

// tempPrefix starts the name of a commands' temporary directory, followed
// by the agent's process id.
const tempPrefix = "agent-tmp-"

// removeStale removes, with remove, the entries of dir named prefix+PID-...
// whose agent process is gone (killed before it could clean up), when they
// belong to this user.
func removeStale(dir, prefix string, remove func(string) error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || processAlive(pid) || !ownedByUs(filepath.Join(dir, e.Name())) {
			continue
		}
		remove(filepath.Join(dir, e.Name()))
	}
}

// BuildBackground is a shell.Builder for commands that outlive their call
// (bash's run_in_background): as Build, but where the command would run
// unconfined (the Off mode, or no sandbox enforced) it is started under
// the helper as a supervisor only, on Linux: a child subreaper that
// confines nothing and whose parent-death signal is SIGTERM, so that
// nothing the command starts outlives the agent, even when the agent is
// killed with SIGKILL (a confined command has that supervisor already).
// Elsewhere it is Build.
func (s *Sandbox) BuildBackground(spec shell.Spec) (*exec.Cmd, error) {
	cmd, err := s.Build(spec)
	if err != nil {
		return nil, err
	}
	return supervised(cmd, spec), nil
}
