//go:build linux

package sandbox

// The set-up of a session's sandbox (base) and the verdict on whether
// user namespaces work (decide, settle; a first command learns it as it
// starts, see startProbing).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// verdictState is how far the verdict on namespaces is.
type verdictState int

const (
	verdictUnknown verdictState = iota
	verdictClaimed              // the probe, or a first command, is learning it
	verdictKnown
)

// eager reports whether the verdict on namespaces decides whether the
// policy can be enforced at all: Landlock without TCP rules, the network
// off. It is then learnt at once, by the probe.
func (l *linux) eager() bool { return l.abi > 0 && l.abi < 4 && !l.p.Network }

// setup makes what commands need and learns whether namespaces work,
// running the namespace probe unless it or a first command has.
func (l *linux) setup() {
	l.base()
	l.decide()
}

// base makes, once, what commands need besides the verdict on namespaces:
// the session's network namespace and pids cgroup (each takes the kernel
// about a millisecond to make), and the Landlock ruleset for commands with
// namespaces. Where the verdict decides whether the policy can be enforced
// at all (eager), the namespace probe runs beside them. What the policy
// cannot use (nothing can be enforced) is let go.
func (l *linux) base() {
	l.startMu.Lock()
	l.started = true
	l.startMu.Unlock()
	l.once.Do(func() {
		defer l.setUp.Store(true)
		var (
			wg     sync.WaitGroup
			net    *sharedNet
			netErr string
			cg     *pidsCgroup
			cgErr  error
		)
		// The session's network namespace (or, NetworkOf, its owner's)
		// is made beside the rest: the kernel's part of the set-up,
		// about 1.4 ms of a session's first command on this project's
		// test machine, against 0.5 ms for the cgroup and 0.2 ms for the
		// temporary directory (BENCHMARKS.md, issue 43).
		if !l.p.Network {
			wg.Go(func() { net, netErr = l.sessionNet() })
		}
		wantTmp := l.p.TempSize > 0 && l.p.sessionTemp != ""
		if wantTmp && l.p.makeTemp() != nil {
			// The ruleset names it, and the commands' tmpfs is mounted
			// on it. Without it the probe still runs (what confines
			// commands, hooks included, is known); Build fails with
			// makeTemp's error.
			wantTmp = false
		}
		if wantTmp {
			l.tmpSize = l.p.TempSize
		}
		// (A probe's parent-death signal follows the thread that starts
		// it: no goroutine may lock a thread and end while it runs, see
		// sharedNet.serve.)
		exe := l.helper()
		var probe *probeRun
		var probeErr error
		if l.eager() {
			l.vmu.Lock()
			l.vstate = verdictClaimed
			l.vmu.Unlock()
			probe, probeErr = l.startProbe(l.tmpSize)
		}
		if l.p.MaxProcesses > 0 {
			cg, cgErr = newPidsCgroup(l.p.MaxProcesses)
		}
		wg.Wait()
		l.net, l.netErr = net, netErr
		if l.eager() {
			var p probed
			if probeErr == nil {
				p, probeErr = probe.wait()
			}
			p, probeErr = l.probeAgain(exe, p, probeErr)
			l.settle(p, probeErr)
		}
		enforced, _ := l.enforced()
		if enforced && l.p.MaxProcesses > 0 {
			if cgErr == nil {
				l.cg, cg = cg, nil
			} else {
				l.cgErr = cgErr.Error()
			}
		}
		cg.close() // not kept
		if !enforced {
			l.releaseNet()
			return
		}
		l.rulesetNS = !l.eager() || l.ns
		l.ruleset, l.err = l.buildRuleset(l.rulesetNS)
	})
}

// decide makes sure the verdict on namespaces is known: it runs the
// namespace probe unless the probe or a first command (startProbing) is
// learning it already, in which case it waits for that. base has ended.
func (l *linux) decide() {
	l.vmu.Lock()
	switch l.vstate {
	case verdictKnown:
		l.vmu.Unlock()
		return
	case verdictClaimed:
		l.vmu.Unlock()
		<-l.vdone
		return
	}
	l.vstate = verdictClaimed
	l.vmu.Unlock()
	l.probeAndSettle()
}

// probeAndSettle runs the namespace probe and records its verdict; the
// caller has claimed it.
func (l *linux) probeAndSettle() {
	exe := l.helper()
	p, err := l.probe(l.tmpSize)
	p, err = l.probeAgain(exe, p, err)
	l.settle(p, err)
}

// probeAgain runs the probe again with the agent's own binary as the
// helper when exe, the helper the first probe started as, could not be
// started at all (not its namespaces: it starts without them); else it
// returns p and err, the first probe's.
func (l *linux) probeAgain(exe string, p probed, err error) (probed, error) {
	if start := (*fs.PathError)(nil); errors.As(err, &start) && exe != selfExe && !l.starts(exe) && l.fallBack(exe) {
		return l.probe(l.tmpSize)
	}
	return p, err
}

// settle records the verdict, err (nil: namespaces work), and the
// session's tmpfs p made, and wakes what waits for it. What needs
// namespaces is let go when they do not work.
func (l *linux) settle(p probed, err error) {
	if err != nil {
		l.nsErr = err.Error()
	} else {
		l.ns = true
	}
	enforced, _ := l.enforced()
	if enforced && l.tmpSize > 0 {
		switch {
		case !l.ns:
			l.tmpErr = "it needs user namespaces"
		case p.tmpErr != nil:
			l.tmpErr = fmt.Sprintf("no tmpfs of its own (Linux 6.15 or later): %v", p.tmpErr)
		default:
			// The ruleset was built before the tmpfs was made (a first
			// command that made it granted this already: the same rule).
			if l.ruleset != nil && l.rulesetNS {
				if err := addTmpRule(int(l.ruleset.Fd()), p.tmp, l.tmpRights()); err != nil {
					l.tmpErr = err.Error()
					break
				}
			}
			l.tmp, p.tmp = p.tmp, nil
		}
	}
	if p.tmp != nil {
		p.tmp.Close()
	}
	if !l.ns {
		l.releaseNet()
	}
	l.vmu.Lock()
	l.vstate = verdictKnown
	close(l.vdone)
	l.vmu.Unlock()
}

// tmpRights are the Landlock access rights granted beneath the session's
// tmpfs: a writable root's, for commands with namespaces (the only ones
// that mount it).
func (l *linux) tmpRights() uint64 { return rightsFor(l.abi, l.p.Network, true).write }

// releaseNet closes the session's network namespace, which no command
// will use (a borrowed one is its owner's to close).
func (l *linux) releaseNet() {
	if l.net != nil && !l.netBorrowed {
		l.net.close()
	}
}

// rulesetFor is the Landlock ruleset of a command with namespaces (ns)
// or without.
func (l *linux) rulesetFor(ns bool) (*os.File, error) {
	if ns == l.rulesetNS {
		return l.ruleset, l.err
	}
	l.plainOnce.Do(func() { l.plain, l.plainErr = l.buildRuleset(ns) })
	return l.plain, l.plainErr
}

// unknown reports whether no verdict on namespaces is known or being
// learnt.
func (l *linux) unknown() bool {
	l.vmu.Lock()
	defer l.vmu.Unlock()
	return l.vstate == verdictUnknown
}
