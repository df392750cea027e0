package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

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
