//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// linux confines commands with Landlock, applied by the helper, and with
// user, mount and network namespaces when the kernel lets us create them.
type linux struct {
	p   Policy
	abi int // Landlock ABI; 0 when there is none
	why string

	// exeMu guards exe, the program started as the helper: "" until
	// helper chose it (a test or benchmark may set it first to a program
	// of its own); see helperexe_linux.go.
	exeMu sync.Mutex
	exe   string

	once sync.Once // base
	// startMu guards started (base has begun, so close must wait for
	// it) and closed (prepare starts nothing after close).
	startMu sync.Mutex
	started bool
	closed  bool

	// The verdict: whether namespaces work, learnt by the namespace probe
	// or by a session's first command, which probes as it starts
	// (startProbing). vmu guards vstate; vdone is closed once it is
	// known. ns, nsErr, tmp and tmpErr are set then.
	vmu    sync.Mutex
	vstate verdictState
	vdone  chan struct{}
	// vclosed, guarded by vmu, is set by close: no first command claims
	// the verdict after it.
	vclosed bool
	ns      bool   // namespaces work
	nsErr   string // why not
	// probing maps each command built to probe as it starts (its Spec
	// had BuildAgain, the verdict unknown) to its probe socket.
	probing sync.Map // *exec.Cmd -> *probeSocket
	// probes counts the namespace probes started (a process each).
	probes atomic.Int32

	// ruleset is the Landlock ruleset for commands with namespaces when
	// rulesetNS (else without); err why it could not be made. plain is
	// the other one, made when a verdict needs it (see rulesetFor).
	ruleset   *os.File
	rulesetNS bool
	err       error
	plainOnce sync.Once
	plain     *os.File
	plainErr  error
	// tmpSize is the size of the session's tmpfs to make, in bytes (0:
	// none).
	tmpSize int64

	tmp    *os.File    // the session's tmpfs, a detached mount (nil: none)
	tmpErr string      // why there is none
	cg     *pidsCgroup // the session's pids cgroup (nil: none)
	cgErr  string      // why there is none
	// net is the session's network namespace (nil: one per command),
	// used by commands with namespaces only; netErr why there is none,
	// with the network off.
	net    *sharedNet
	netErr string
	// netBorrowed: net is Policy.NetworkOf's, which closes it.
	netBorrowed bool
	// built is set by the first build: until then no command has run
	// under the bounds (see usage).
	built atomic.Bool
	// setUp is set once base has ended.
	setUp atomic.Bool
}

func newPlatform(p Policy) platform {
	l := &linux{p: p, vdone: make(chan struct{})}
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil:
		l.why = fmt.Sprintf("Landlock is not available (%v): the kernel is older than 5.13, or Landlock is not enabled at boot", err)
	default:
		l.abi = abi
	}
	if l.eager() {
		l.setup() // only namespaces can keep the network off: find out now
	}
	// Otherwise the set-up (the session's network namespace, a cgroup,
	// the ruleset) waits for prepare or the first command, which probes
	// the namespaces as it starts: begun at start it took the cores from
	// the first request.
	return l
}

// prepare begins the set-up (base) in the background, unless it has begun
// or the sandbox is closed.
func (l *linux) prepare() {
	if l.abi == 0 {
		return
	}
	l.startMu.Lock()
	defer l.startMu.Unlock()
	if !l.started && !l.closed {
		l.started = true
		go l.base()
	}
}

// begun reports whether the set-up has begun (its resources then exist
// or are being made).
func (l *linux) begun() bool {
	l.startMu.Lock()
	defer l.startMu.Unlock()
	return l.started
}

// enforced reports whether the policy can be enforced, given what is known
// so far (the namespace probe decides only for old kernels with the
// network off).
func (l *linux) enforced() (bool, string) {
	switch {
	case l.abi == 0:
		return false, l.why
	case !l.p.Network && l.abi < 4 && !l.ns:
		return false, fmt.Sprintf("the network cannot be turned off: Landlock ABI %d has no TCP rules and user namespaces are unavailable (%s)", l.abi, l.nsErr)
	}
	return true, ""
}

func (l *linux) status(full bool) Status {
	if !full {
		st := Status{LandlockABI: l.abi}
		st.Enforced, st.Reason = l.enforced() // the probe ran already when it decides
		return st
	}
	if l.abi > 0 {
		l.setup()
	}
	st := Status{LandlockABI: l.abi, UserNamespaces: l.ns, UserNamespacesErr: l.nsErr}
	st.Enforced, st.Reason = l.enforced()
	if !st.Enforced {
		return st
	}
	st.Mechanism = fmt.Sprintf("Landlock ABI %d", l.abi)
	if !l.p.Network {
		st.NetworkBy = "Landlock TCP rules"
		switch {
		case l.ns && l.net != nil:
			st.NetworkBy = "a network namespace shared by the session's commands"
		case l.ns:
			st.NetworkBy = "a network namespace per command"
			st.Warnings = append(st.Warnings, "a server a background process starts on 127.0.0.1 is not reachable from later commands: "+l.netErr)
		default:
			st.Warnings = append(st.Warnings, "with the network off and no network namespace, no command can serve or reach 127.0.0.1 (Landlock's TCP rules cannot tell loopback from the network): set [sandbox] network = true to run servers")
			st.Warnings = append(st.Warnings, "without a network namespace only TCP is blocked: UDP (DNS) still leaves the machine")
		}
		if unixSocketsBlockable() {
			st.NetworkBy += "; unix sockets denied by seccomp"
		} else {
			st.Warnings = append(st.Warnings, "unix sockets of host services (Docker, D-Bus, ssh-agent) stay reachable on "+runtime.GOARCH)
		}
	}
	if l.p.Mode == WorkspaceWrite {
		if l.ns {
			st.ProtectedBy = "read-only bind mounts in a mount namespace"
		} else {
			st.Warnings = append(st.Warnings, "without a mount namespace, .git/hooks, .git/config and the agent's directories inside the working directory are writable")
		}
	}
	st.Hidden = l.p.hidden()
	if l.ns {
		st.HiddenBy = "empty mounts in a mount namespace"
	} else if len(st.Hidden) > 0 {
		st.Warnings = append(st.Warnings, "without a mount namespace, credential files stay readable to commands: "+strings.Join(st.Hidden, ", "))
	}
	if !l.ns {
		st.Warnings = append(st.Warnings, "without a mount namespace, commands can change the mode and owner of files outside the writable roots (Landlock does not govern them)")
	}
	st.Bounds, st.Warnings = l.bounds(st.Warnings)
	if l.abi < 6 {
		st.Warnings = append(st.Warnings, fmt.Sprintf("Landlock ABI %d cannot scope signals and abstract unix sockets (ABI 6 can)", l.abi))
	}
	return st
}

// sysProcAttr is the helper's process attributes: the parent-death signal
// (the helper then kills what it started) and, when they work, new user,
// mount, IPC and (network off) network namespaces, in which o's helper maps
// our ids to themselves (helper.Options.MapIDs).
//
// The helper is started with vfork (CLONE_VFORK|CLONE_VM), as os/exec
// starts any program: given CLONE_NEWUSER and id mappings to write, Go
// forks instead, copying the agent's page tables and then taking a fault
// on each page the agent writes next (about 1 ms of a small test process's
// time per command, and as much again per 50 MB of the agent's heap), and
// waits for the child while it writes the mappings. Without mappings the
// helper's ids are not mapped when it execs, so it would lose its
// capabilities in the namespace (they are kept across execve for uid 0
// only); every capability is raised ambient in the child instead, which
// execve keeps, and the helper maps its ids first thing. (For a user other
// than root the helper has its capabilities only this way: mapped to
// itself, its uid is not 0 in the namespace.)
func (l *linux) sysProcAttr(ns bool, o *helper.Options) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if !ns {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_VFORK | syscall.CLONE_VM
	if !l.p.Network {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	a.AmbientCaps = allCapabilities()
	o.MapIDs, o.UID, o.GID = true, os.Getuid(), os.Getgid()
	return a
}

// allCapabilities lists every capability the kernel knows, from
// /proc/sys/kernel/cap_last_cap (read once; CAP_CHECKPOINT_RESTORE, 40,
// when it cannot be read): raising one the kernel does not know fails.
var allCapabilities = sync.OnceValue(func() []uintptr {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 && n < 64 {
			last = n
		}
	}
	caps := make([]uintptr, last+1)
	for i := range caps {
		caps[i] = uintptr(i)
	}
	return caps
})

func (l *linux) build(spec shell.Spec) (*exec.Cmd, error) {
	l.built.Store(true)
	if l.abi == 0 {
		return shell.BashCommand(spec) // not enforced: the policy asked a person
	}
	// A session's first command finds the set-up still running (begun as
	// the model started the call): what its mounts name is looked up
	// meanwhile, not after (about 0.8 ms); later commands look it up
	// only when namespaces mount it.
	var pinned, readOnly, hidden []string
	early := !l.setUp.Load()
	if early {
		pinned, readOnly = protectedNow(l.p)
		hidden = l.p.hidden()
	}
	l.base()
	if ok, _ := l.enforced(); !ok {
		return shell.BashCommand(spec)
	}
	// A command whose caller builds it again when told to probes as it
	// starts, while no verdict is known: the probe then never runs.
	probing := spec.BuildAgain && l.unknown()
	if !probing {
		l.decide()
	}
	ns := probing || l.ns
	ruleset, err := l.rulesetFor(ns)
	if err != nil {
		return nil, fmt.Errorf("the sandbox could not be set up: %w", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("bash is not available on this machine: %v", err)
	}
	o := helper.Options{
		RulesetFD:     3, // the first of ExtraFiles
		PrivateMounts: ns,
		Loopback:      ns && !l.p.Network, // already up in the session's namespace
		NoUnixSockets: !l.p.Network && unixSocketsBlockable(),
		Grace:         spec.KillGrace / 2, // the helper cleans up before the tool kills it
		Program:       []string{bash, "-c", spec.Command},
	}
	if ns {
		o.Writable, o.ReadOnlyRest = existing(l.p.writable()), true
		if !early {
			pinned, readOnly = protectedNow(l.p)
			hidden = l.p.hidden()
		}
		o.Pinned, o.ReadOnly = pinned, readOnly
		if spec.Background && l.p.Mode == WorkspaceWrite {
			// Nothing looks at .git while it runs: the whole git
			// directory stays as it is (see GuardBackground).
			o.Pinned, o.ReadOnly = readOnlyGit(l.p, o.Pinned, o.ReadOnly)
		}
		o.Hidden = hidden
		o.MaxProcs = l.p.MaxProcesses // counted in the command's user namespace only
	}
	attr := l.sysProcAttr(ns, &o)
	files := []*os.File{ruleset}
	if l.cg != nil {
		o.CgroupFD, o.CgroupThread, files = 3+len(files), l.cg.thread, append(files, l.cg.procs)
	}
	var sock *probeSocket
	switch {
	case probing:
		mine, theirs, err := tmpSocket()
		if err != nil {
			return nil, err
		}
		sock = &probeSocket{mine: mine, theirs: theirs}
		o.ProbeFD, files = 3+len(files), append(files, theirs)
		if l.tmpSize > 0 {
			o.MakeTmp, o.TmpAt = l.tmpSize, l.p.sessionTemp
			o.TmpRights = l.tmpRights()
		}
	case l.tmp != nil && ns:
		o.TmpFD, o.TmpAt, files = 3+len(files), l.p.sessionTemp, append(files, l.tmp)
	}
	cmd := l.helperCmd(l.helper(), o.Args(), files)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = spec.Dir, spec.Env, attr
	if l.net != nil && ns { // Start starts it in the session's network namespace
		l.net.adopt(cmd)
	}
	if sock != nil {
		l.probing.Store(cmd, sock)
	}
	return cmd, nil
}

// start starts cmd, in the session's network namespace when it was built
// for it.
func (l *linux) start(cmd *exec.Cmd) error {
	if l.abi > 0 {
		l.base() // done already for a command build confined
	}
	if sock, ok := l.probing.LoadAndDelete(cmd); ok {
		return l.startProbing(cmd, sock.(*probeSocket))
	}
	return l.startIn(cmd)
}

// startIn starts cmd, in the session's network namespace when it was
// built for it.
func (l *linux) startIn(cmd *exec.Cmd) error {
	if l.net == nil {
		return cmd.Start()
	}
	return l.net.start(cmd)
}

// unixSocketsBlockable reports whether the helper's seccomp filter is
// written for this architecture.
func unixSocketsBlockable() bool { return runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" }

func (l *linux) close() error {
	l.startMu.Lock()
	l.closed = true
	begun := l.started
	l.startMu.Unlock()
	if begun {
		l.base() // a set-up still running in the background would leak what it makes
	}
	// No first command may claim the verdict from now on (startProbing);
	// one that has is waited for.
	l.vmu.Lock()
	l.vclosed = true
	learning := l.vstate == verdictClaimed
	l.vmu.Unlock()
	if learning {
		<-l.vdone
	}
	l.probing.Range(func(cmd, sock any) bool { // built, not started
		sock.(*probeSocket).close()
		l.probing.Delete(cmd)
		return true
	})
	if l.tmp != nil {
		l.tmp.Close()
	}
	l.releaseNet()
	l.cg.close()
	l.plainOnce.Do(func() {}) // one being built is waited for; none is made now
	if l.plain != nil {
		l.plain.Close()
	}
	if l.ruleset != nil {
		return l.ruleset.Close()
	}
	return nil
}

func (l *linux) usage() boundUsage {
	if !l.built.Load() {
		// Before the first command, what the set-up makes is as new: no
		// process refused, the tmpfs empty. The first command's guard
		// reads this without waiting for the set-up, which goes on
		// beside the guard and the command's environment.
		return boundUsage{maxProcs: l.p.MaxProcesses, tmpFree: l.p.TempSize, tmpSz: l.p.TempSize}
	}
	if l.abi > 0 {
		// The bounds are made there, maybe still in the background, or
		// by the build that set built, which may not have begun it yet.
		l.base()
	}
	u := boundUsage{maxProcs: l.p.MaxProcesses, pidsHits: l.cg.maxHits()}
	if l.abi > 0 && l.unknown() {
		// No command has run in the session's tmpfs: none is made, and
		// the first command (built meanwhile, probing as it starts)
		// makes it; reading the verdict here would run the probe.
		u.tmpFree, u.tmpSz = l.p.TempSize, l.p.TempSize
		return u
	}
	if l.abi > 0 {
		l.decide()
	}
	u.tmpFree, u.tmpSz, u.tmpOK = tmpUsage(l.tmp)
	return u
}

// bounds says what bounds commands' processes and temporary files, and
// adds warnings for what is not bounded.
func (l *linux) bounds(warnings []string) ([]string, []string) {
	var b []string
	if n := l.p.MaxProcesses; n > 0 {
		switch {
		case l.cg != nil:
			b = append(b, fmt.Sprintf("at most %d processes (pids cgroup)", n))
		case l.ns && os.Geteuid() != 0:
			b = append(b, fmt.Sprintf("at most %d processes (RLIMIT_NPROC in the user namespace)", n))
		default:
			warnings = append(warnings, fmt.Sprintf("the processes of a command are not bounded: no pids cgroup (%s), and RLIMIT_NPROC bounds neither root nor, without user namespaces, the command alone", l.cgErr))
		}
	}
	if d := l.p.sessionTemp; d != "" {
		if l.tmp != nil {
			b = append(b, fmt.Sprintf("temporary directory %s of at most %d MiB (tmpfs)", d, l.p.TempSize>>20))
		} else {
			warnings = append(warnings, fmt.Sprintf("the temporary directory %s is not bounded in size: %s", d, l.tmpErr))
		}
	}
	return b, warnings
}
