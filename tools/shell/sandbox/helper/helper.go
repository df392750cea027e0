// Package helper is the sandbox helper that the agent's own binary becomes
// when it is started as
//
//	agent __agent-sandbox [OPTIONS] -- PROGRAM ARGS...
//
// The agent starts its binary so only where the embedded helper (package
// helperbin: a C program that does the same to the same options, which
// Options.Args writes) is missing or will not start; a change to either
// is a change to both.
//
// It confines itself (read-only bind mounts, loopback up, the Landlock
// ruleset passed as a file descriptor), becomes a child subreaper, starts
// PROGRAM (bash -c COMMAND) under that confinement, and when PROGRAM ends,
// times out or is cancelled, kills every process PROGRAM left behind,
// including those that called setsid or double-forked to hide. The agent
// process itself is never restricted.
//
// The helper runs from this package's init function, before main and before
// the packages that make the agent slow to start (chroma's styles and
// lexers, the JSON-schema compiler: about 20 ms in all). Go initialises
// packages in import-path order, each as soon as its imports are ready and
// no package whose path sorts before it is ready too. So this package
// imports only the few standard packages that are ready early (errors, os,
// os/signal, runtime, strconv, syscall, time, unsafe; deps_test.go keeps
// the list): not fmt, which waits for reflect, nor strings; with either, Go
// first initialised some 60 packages whose paths sort before this one
// (crypto, encoding, the TOML parser...), 1-1.5 ms of every sandboxed
// command. This is the one init function of the project with an effect, and
// it does nothing unless the process was started as the helper.
package helper

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"time"
)

// Arg is the first argument that makes the binary the sandbox helper.
const Arg = "__agent-sandbox"

// TmpFailed starts the line a probe that was to make the session's tmpfs
// (Options.MakeTmp) writes on stdout when it could not.
const TmpFailed = "tmpfs: "

// ProbeOK is what the helper writes on Options.ProbeFD once its set-up
// got as far as a probe's.
const ProbeOK = "ok\n"

// ExitSetup is the helper's exit status when the confinement could not be
// set up and nothing ran (a probe exits 0 once its set-up succeeded).
const ExitSetup = 125

// Options are the helper's command-line options, in the order the sandbox
// package writes them.
type Options struct {
	// RulesetFD is the Landlock ruleset's file descriptor (-1: none).
	RulesetFD int
	// Writable are directories that stay writable when ReadOnlyRest makes
	// every other mount read-only: each is bind-mounted over itself first.
	Writable []string
	// ReadOnlyRest remounts every mount read-only except the Writable ones
	// and those under /dev, /proc and /sys, so that nothing outside the
	// writable roots changes, not even modes and owners (which Landlock
	// does not govern). It needs a private mount namespace.
	ReadOnlyRest bool
	// Pinned are directories bind-mounted over themselves (staying
	// writable) after the Writable ones, so that they cannot be renamed or
	// replaced: the parents of ReadOnly paths.
	Pinned []string
	// ReadOnly are paths bind-mounted read-only over themselves, after the
	// Writable ones (they lie inside them); they need a private mount
	// namespace (PrivateMounts).
	ReadOnly []string
	// Hidden are files and directories made unreadable, after every other
	// mount: an empty tmpfs of mode 000, read-only, over each directory;
	// /dev/null, read-only, over each file. They need a private mount
	// namespace.
	Hidden []string
	// PrivateMounts makes every mount private before binding, so nothing
	// propagates back to the agent's mount namespace.
	PrivateMounts bool
	// Loopback brings up the loopback interface of a new network
	// namespace.
	Loopback bool
	// NoUnixSockets denies creating unix-domain sockets (socketpair stays
	// allowed), so that host services listening on socket files (Docker,
	// D-Bus, ssh-agent) are out of reach when the network is off.
	NoUnixSockets bool
	// Grace is how long processes have between SIGTERM and SIGKILL when the
	// helper is told to stop.
	Grace time.Duration
	// Probe only sets up and exits 0: used to learn whether namespaces work.
	Probe bool
	// SuperviseOnly confines nothing: the helper only supervises the
	// program (a child subreaper whose parent-death signal is SIGTERM), so
	// that nothing an unconfined background process starts outlives the
	// agent, even one killed with SIGKILL. The program keeps the agent's
	// capabilities and may gain privileges (sudo).
	SuperviseOnly bool
	// MaxProcs, when positive, is the RLIMIT_NPROC of the program: the most
	// processes (threads) it and what it starts may have at once.
	MaxProcs int
	// CgroupFD, when not -1, is a descriptor of the cgroup.procs file of a
	// cgroup whose pids.max bounds the program's processes (for root, whom
	// RLIMIT_NPROC does not bound); the helper joins it first.
	CgroupFD int
	// CgroupThread says CgroupFD is the cgroup's tasks file (cgroup v1):
	// the thread that starts the program joins it alone, before it
	// starts it. Writing 0 there moves the calling thread only, which
	// takes no lock that every fork of the system waits on; moving the
	// whole process (cgroup.procs) waits for an RCU grace period, which
	// took 10 ms of a session's first command.
	CgroupThread bool
	// TmpFD, when not -1, is a detached tmpfs mount (see MakeTmp) that the
	// helper mounts a clone of on TmpAt: the session's temporary directory
	// (with ProbeFD and MakeTmp, the tmpfs the helper makes).
	TmpFD int
	TmpAt string
	// MakeTmp, when positive, makes the probe (with Probe) first create a
	// tmpfs of that many bytes as a detached mount and send it over the
	// unix socket at descriptor 3: done once per session, in namespaces of
	// its own. A tmpfs it could not make is a line on stdout, TmpFailed
	// followed by why, and the probe goes on. With ProbeFD instead, the
	// helper of a command sends it (or that line) over ProbeFD, and mounts
	// it on TmpAt itself.
	MakeTmp int64
	// TmpRights, with ProbeFD and MakeTmp, are the Landlock access rights
	// the helper grants beneath the tmpfs it makes, in the ruleset at
	// RulesetFD, before it sends it: the tmpfs's inodes need a rule of their
	// own, and the ruleset is the agent's, which keeps the rule for the
	// session's later commands.
	TmpRights uint64
	// ProbeFD, when not -1, makes the helper of a command the session's
	// namespace probe too (the probe then need not run: a process less):
	// ProbeFD is a unix socket on which it writes "ok\n" (ProbeOK) once its
	// ids are mapped and the mounts are private, with Writable bound and
	// ReadOnlyRest applied (what a probe tries), and which it closes then.
	// A set-up failure before that is written there, not on stderr, and
	// nothing runs: the agent then learns from a probe whether namespaces
	// work, and builds the command again.
	ProbeFD int
	// MapIDs makes the helper map UID and GID (the agent's own ids) to
	// themselves in its new user namespace before anything else, writing
	// its own uid_map and gid_map (setgroups denied): the agent starts it
	// with vfork, which leaves the parent no moment to write them, and with
	// every capability ambient, so that the helper keeps them across the
	// execve although its ids are not mapped yet.
	MapIDs   bool
	UID, GID int
	// Program and its arguments (Program[0] is an absolute path).
	Program []string
}

// Args writes o as the helper's arguments after Arg.
func (o Options) Args() []string {
	a := []string{"--ruleset-fd=" + strconv.Itoa(o.RulesetFD), "--grace-ms=" + strconv.FormatInt(o.Grace.Milliseconds(), 10)}
	if o.PrivateMounts {
		a = append(a, "--private-mounts")
	}
	for _, p := range o.Writable {
		a = append(a, "--rw="+p)
	}
	if o.ReadOnlyRest {
		a = append(a, "--ro-rest")
	}
	for _, p := range o.Pinned {
		a = append(a, "--pin="+p)
	}
	for _, p := range o.ReadOnly {
		a = append(a, "--ro="+p)
	}
	for _, p := range o.Hidden {
		a = append(a, "--hide="+p)
	}
	if o.Loopback {
		a = append(a, "--loopback")
	}
	if o.NoUnixSockets {
		a = append(a, "--no-unix-sockets")
	}
	if o.Probe {
		a = append(a, "--probe")
	}
	if o.SuperviseOnly {
		a = append(a, "--supervise-only")
	}
	if o.MaxProcs > 0 {
		a = append(a, "--max-procs="+strconv.Itoa(o.MaxProcs))
	}
	if o.CgroupFD > 0 {
		a = append(a, "--cgroup-fd="+strconv.Itoa(o.CgroupFD))
		if o.CgroupThread {
			a = append(a, "--cgroup-thread")
		}
	}
	if o.TmpFD > 0 {
		a = append(a, "--tmp-fd="+strconv.Itoa(o.TmpFD))
	}
	if o.TmpAt != "" {
		a = append(a, "--tmp-at="+o.TmpAt)
	}
	if o.MakeTmp > 0 {
		a = append(a, "--make-tmp="+strconv.FormatInt(o.MakeTmp, 10))
	}
	if o.ProbeFD > 0 {
		a = append(a, "--probe-fd="+strconv.Itoa(o.ProbeFD))
	}
	if o.TmpRights > 0 {
		a = append(a, "--tmp-rights="+strconv.FormatUint(o.TmpRights, 10))
	}
	if o.MapIDs {
		a = append(a, "--map-ids="+strconv.Itoa(o.UID)+":"+strconv.Itoa(o.GID))
	}
	return append(append(a, "--"), o.Program...)
}

// Parse reads the helper's arguments (those after Arg).
func Parse(args []string) (Options, error) {
	o := Options{RulesetFD: -1, CgroupFD: -1, TmpFD: -1, ProbeFD: -1, Grace: time.Second}
	for i, a := range args {
		switch {
		case a == "--":
			o.Program = args[i+1:]
			if len(o.Program) == 0 && !o.Probe {
				return o, errors.New("no program to run")
			}
			return o, nil
		case hasPrefix(a, "--ruleset-fd="):
			n, err := strconv.Atoi(a[len("--ruleset-fd="):])
			if err != nil {
				return o, errors.New("bad " + a)
			}
			o.RulesetFD = n
		case hasPrefix(a, "--grace-ms="):
			n, err := strconv.ParseInt(a[len("--grace-ms="):], 10, 64)
			if err != nil || n < 0 {
				return o, errors.New("bad " + a)
			}
			o.Grace = time.Duration(n) * time.Millisecond
		case hasPrefix(a, "--rw="):
			o.Writable = append(o.Writable, a[len("--rw="):])
		case a == "--ro-rest":
			o.ReadOnlyRest = true
		case hasPrefix(a, "--pin="):
			o.Pinned = append(o.Pinned, a[len("--pin="):])
		case hasPrefix(a, "--ro="):
			o.ReadOnly = append(o.ReadOnly, a[len("--ro="):])
		case hasPrefix(a, "--hide="):
			o.Hidden = append(o.Hidden, a[len("--hide="):])
		case a == "--private-mounts":
			o.PrivateMounts = true
		case a == "--loopback":
			o.Loopback = true
		case a == "--no-unix-sockets":
			o.NoUnixSockets = true
		case a == "--probe":
			o.Probe = true
		case a == "--supervise-only":
			o.SuperviseOnly = true
		case a == "--cgroup-thread":
			o.CgroupThread = true
		case hasPrefix(a, "--max-procs="), hasPrefix(a, "--cgroup-fd="), hasPrefix(a, "--tmp-fd="), hasPrefix(a, "--probe-fd="):
			name, val, _ := cut(a, '=')
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return o, errors.New("bad " + a)
			}
			switch name {
			case "--max-procs":
				o.MaxProcs = n
			case "--cgroup-fd":
				o.CgroupFD = n
			case "--probe-fd":
				o.ProbeFD = n
			default:
				o.TmpFD = n
			}
		case hasPrefix(a, "--tmp-at="):
			o.TmpAt = a[len("--tmp-at="):]
		case hasPrefix(a, "--map-ids="):
			u, g, ok := cut(a[len("--map-ids="):], ':')
			uid, err1 := strconv.Atoi(u)
			gid, err2 := strconv.Atoi(g)
			if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
				return o, errors.New("bad " + a)
			}
			o.MapIDs, o.UID, o.GID = true, uid, gid
		case hasPrefix(a, "--tmp-rights="):
			n, err := strconv.ParseInt(a[len("--tmp-rights="):], 10, 64)
			if err != nil || n <= 0 {
				return o, errors.New("bad " + a)
			}
			o.TmpRights = uint64(n)
		case hasPrefix(a, "--make-tmp="):
			n, err := strconv.ParseInt(a[len("--make-tmp="):], 10, 64)
			if err != nil || n <= 0 {
				return o, errors.New("bad " + a)
			}
			o.MakeTmp = n
		default:
			return o, errors.New("unknown option " + strconv.Quote(a))
		}
	}
	return o, errors.New("missing -- before the program")
}

func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	runtime.LockOSThread() // the confinement is set up on this thread; the program is started from it
	o, err := Parse(os.Args[2:])
	if err != nil {
		fail(err)
	}
	os.Exit(run(o))
}

// wrapError is an error with its context. The package does not use fmt:
// fmt needs reflect, after which Go initialises a long run of other
// packages (crypto, encoding, the TOML parser...) before this one, since
// their import paths sort first; without it the helper takes over about a
// millisecond sooner (see the package comment).
type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *wrapError) Unwrap() error { return e.err }

// wrap returns err with msg before it ("msg: err"), unwrapping to err.
func wrap(err error, msg string) error { return &wrapError{msg, err} }

// failTo is where fail writes: stderr, or Options.ProbeFD until the set-up
// got as far as a probe's.
var failTo = os.Stderr

// fail reports a set-up failure on stderr, which the agent shows the model
// (or on Options.ProbeFD, see failTo), and exits with ExitSetup.
func fail(err error) {
	failTo.WriteString("agent sandbox: " + err.Error() + "\n")
	os.Exit(ExitSetup)
}
