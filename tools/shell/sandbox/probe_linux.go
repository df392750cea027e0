package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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

// probe starts the helper in probe mode inside the namespaces: it sets
// them up as a command would and exits. With tmpSize, it first makes the
// session's tmpfs of that many bytes. With the network off it makes no
// network namespace: the keeper of the session's, started beside it
// (sessionNet), tries that part, on the other processor. The error says
// why namespaces cannot be used; nothing is kept then. It wraps an
// *fs.PathError when the helper could not be started at all.
func (l *linux) probe(tmpSize int64) (probed, error) {
	o := helper.Options{RulesetFD: -1, PrivateMounts: true, Writable: existing(l.p.writable()), ReadOnlyRest: true,
		Probe: true, MakeTmp: tmpSize}
	attr := l.sysProcAttr(true, &o) // before o.Args: it sets the ids to map
	attr.Cloneflags &^= syscall.CLONE_NEWNET
	var mine, theirs *os.File
	var files []*os.File
	if tmpSize > 0 {
		var err error
		if mine, theirs, err = tmpSocket(); err != nil {
			return probed{}, err
		}
		defer mine.Close()
		defer theirs.Close()
		files = []*os.File{theirs} // at 3: helper.Options.MakeTmp
	}
	cmd := l.helperCmd(l.helper(), o.Args(), files)
	cmd.SysProcAttr = attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return probed{}, fmt.Errorf("user namespaces: %w", err) // an *fs.PathError: see setup
	}
	if err := cmd.Wait(); err != nil {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			return probed{}, fmt.Errorf("user namespaces: %s", msg)
		}
		return probed{}, fmt.Errorf("user namespaces: %v", err)
	}
	var p probed
	if tmpSize == 0 {
		return p, nil
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if why, ok := strings.CutPrefix(line, helper.TmpFailed); ok {
			p.tmpErr = errors.New(why)
			return p, nil
		}
	}
	theirs.Close() // the helper's copy: receiveTmp sees the end of what was sent
	p.tmp, p.tmpErr = receiveTmp(mine)
	return p, nil
}
