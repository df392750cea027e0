package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// probed is what the namespace probe made besides its verdict.
type probed struct {
	// tmp is the session's tmpfs (a detached mount), or tmpErr why there
	// is none; both nil when none was asked for.
	tmp    *os.File
	tmpErr error
}

// probe starts the helper in probe mode and waits for its verdict (see
// startProbe and probeRun.wait).
func (l *linux) probe(tmpSize int64) (probed, error) {
	r, err := l.startProbe(tmpSize)
	if err != nil {
		return probed{}, err
	}
	return r.wait()
}

// probeRun is a started namespace probe.
type probeRun struct {
	cmd            *exec.Cmd
	mine, theirs   *os.File // the tmpfs's socket (nil: none asked for)
	stdout, stderr bytes.Buffer
}

// startProbe starts the helper in probe mode inside the namespaces: it
// sets them up as a command would and exits. With tmpSize, it first makes
// the session's tmpfs of that many bytes. With the network off it makes
// no network namespace: the session's, made beside it (startSharedNet),
// tries that part. The error wraps
// an *fs.PathError when the helper could not be started at all; wait
// must be called on a probe that started.
func (l *linux) startProbe(tmpSize int64) (*probeRun, error) {
	o := helper.Options{RulesetFD: -1, PrivateMounts: true, Writable: existing(l.p.writable()), ReadOnlyRest: true,
		Probe: true, MakeTmp: tmpSize}
	attr := l.sysProcAttr(true, &o) // before o.Args: it sets the ids to map
	attr.Cloneflags &^= syscall.CLONE_NEWNET
	r := &probeRun{}
	var files []*os.File
	if tmpSize > 0 {
		var err error
		if r.mine, r.theirs, err = tmpSocket(); err != nil {
			return nil, err
		}
		files = []*os.File{r.theirs} // at 3: helper.Options.MakeTmp
	}
	r.cmd = l.helperCmd(l.helper(), o.Args(), files)
	r.cmd.SysProcAttr = attr
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	l.probes.Add(1)
	if err := r.cmd.Start(); err != nil {
		r.closeSocket()
		return nil, fmt.Errorf("user namespaces: %w", err) // an *fs.PathError: see setup
	}
	return r, nil
}

// wait waits for the probe and returns what it made. The error says why
// namespaces cannot be used; nothing is kept then.
func (r *probeRun) wait() (probed, error) {
	defer r.closeSocket()
	if err := r.cmd.Wait(); err != nil {
		if msg := bytes.TrimSpace(r.stderr.Bytes()); len(msg) > 0 {
			return probed{}, fmt.Errorf("user namespaces: %s", msg)
		}
		return probed{}, fmt.Errorf("user namespaces: %v", err)
	}
	var p probed
	if r.mine == nil {
		return p, nil
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout.String()), "\n") {
		if why, ok := strings.CutPrefix(line, helper.TmpFailed); ok {
			p.tmpErr = errors.New(why)
			return p, nil
		}
	}
	r.theirs.Close() // the helper's copy: receiveTmp sees the end of what was sent
	p.tmp, p.tmpErr = receiveTmp(r.mine)
	return p, nil
}

func (r *probeRun) closeSocket() {
	if r.mine != nil {
		r.mine.Close()
		r.theirs.Close()
	}
}

// probeSocket is the unix socket on which a command built to probe as it
// starts reports (helper.Options.ProbeFD): mine is the agent's end; theirs
// the helper's, closed once the helper has started.
type probeSocket struct{ mine, theirs *os.File }

func (s *probeSocket) close() {
	s.mine.Close()
	s.theirs.Close()
}

// startProbing starts cmd, a session's first command built to probe as it
// starts (see build), and learns from it whether namespaces work: nil
// when they do, cmd then running in them with the session's tmpfs it made.
// When the verdict was learnt meanwhile (another command claimed it), or
// cmd's set-up failed before it got as far as a probe's, nothing ran; the
// verdict is then the probe's, as before any command, and the error is
// shell.ErrBuildAgain.
func (l *linux) startProbing(cmd *exec.Cmd, sock *probeSocket) error {
	defer sock.mine.Close()
	l.vmu.Lock()
	if l.vstate != verdictUnknown || l.vclosed {
		closed := l.vclosed
		l.vmu.Unlock()
		sock.theirs.Close()
		if l.net != nil {
			l.net.forget(cmd)
		}
		if closed {
			return errors.New("the sandbox is closed")
		}
		return fmt.Errorf("the sandbox's namespaces were probed meanwhile: %w", shell.ErrBuildAgain)
	}
	l.vstate = verdictClaimed
	l.vmu.Unlock()
	err := l.startIn(cmd)
	sock.theirs.Close() // the helper's copy: the end of what it sends is its own close
	var rep probeReport
	if err == nil {
		rep = readProbe(sock.mine, l.tmpSize > 0)
		if rep.ok {
			l.settle(probed{tmp: rep.tmp, tmpErr: rep.tmpErr}, nil)
			return nil
		}
		if rep.err != nil {
			// Whether its program started is not known: it is stopped,
			// and not started again.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Process.Kill()
		}
		cmd.Wait() // it ended before anything ran, or was stopped
	}
	if rep.tmp != nil {
		rep.tmp.Close()
	}
	l.probeAndSettle()
	if rep.err != nil {
		return fmt.Errorf("reading what the sandbox's first command reported: %w", rep.err)
	}
	return fmt.Errorf("the sandbox's first command could not set up its namespaces: %w", shell.ErrBuildAgain)
}

// probeReport is what a command that probes as it starts reported.
type probeReport struct {
	ok     bool     // its set-up got as far as a probe's
	tmp    *os.File // the session's tmpfs it made (nil: none)
	tmpErr error    // why it made none
	err    error    // the socket could not be read to its end
}

// readProbe reads what a helper reports on the agent's end of its probe
// socket (helper.Options.ProbeFD), until helper.ProbeOK or the end (the
// helper failed, and exits): each write of the helper is a record of the
// SOCK_SEQPACKET socket; the tmpfs comes as a record of one byte with its
// descriptor. wantTmp says the helper was to make the tmpfs.
func readProbe(mine *os.File, wantTmp bool) probeReport {
	var r probeReport
	var text []byte
	buf, oob := make([]byte, 8192), make([]byte, syscall.CmsgSpace(4))
	fd := int(mine.Fd())
	for {
		n, oobn, flags, _, err := syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			r.err = err
			break
		}
		if n == 0 && oobn == 0 {
			break // the helper's end is closed
		}
		rec := buf[:n]
		if flags&syscall.MSG_CTRUNC != 0 {
			// The kernel dropped the tmpfs's descriptor (the agent is at
			// its limit of open files).
			r.tmpErr = errors.New("its descriptor could not be received (too many open files?)")
			rec = bytes.TrimPrefix(rec, []byte{0})
		}
		if oobn > 0 {
			if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					fds, _ := syscall.ParseUnixRights(&m)
					for _, f := range fds {
						if r.tmp == nil {
							r.tmp = os.NewFile(uintptr(f), "session-tmpfs")
						} else {
							syscall.Close(f)
						}
					}
				}
			}
			rec = bytes.TrimPrefix(rec, []byte{0})
		}
		if string(rec) == helper.ProbeOK {
			r.ok = true
			break
		}
		text = append(text, rec...)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		// Other lines are a set-up's failure: the probe then decides,
		// and says why.
		if why, ok := strings.CutPrefix(line, helper.TmpFailed); ok && r.tmpErr == nil {
			r.tmpErr = errors.New(why)
		}
	}
	if r.ok && wantTmp && r.tmp == nil && r.tmpErr == nil {
		r.tmpErr = errors.New("the first command sent no tmpfs")
	}
	return r
}
