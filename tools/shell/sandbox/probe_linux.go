package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// probed is what the namespace probe made besides its verdict.
type probed struct {
	// tmp is the session's tmpfs (a detached mount), or tmpErr why there
	// is none; both nil when none was asked for.
	tmp    *os.File
	tmpErr error
	// keeper keeps the session's network namespace (nil: none asked for,
	// or the probe failed).
	keeper *netHolder
}

// probe starts the helper in probe mode inside the namespaces: it sets
// them up as a command would and exits. With tmpSize, it first makes the
// session's tmpfs of that many bytes. With hold (the network off), it stays
// as the keeper of the session's network namespace. Each saves a helper
// process of its own at a session's first command. The error says why
// namespaces cannot be used; nothing is kept then. It wraps an
// *fs.PathError when the helper could not be started at all.
func (l *linux) probe(tmpSize int64, hold bool) (probed, error) {
	o := helper.Options{RulesetFD: -1, PrivateMounts: true, Writable: existing(l.p.writable()), ReadOnlyRest: true,
		Loopback: !l.p.Network, Probe: true, MakeTmp: tmpSize, HoldNet: hold}
	attr := l.sysProcAttr(true, &o) // before o.Args: it sets the ids to map
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
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	failed := func(err error) error {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			return fmt.Errorf("user namespaces: %s", msg)
		}
		return fmt.Errorf("user namespaces: %v", err)
	}
	var p probed
	var lines []string
	if hold {
		var err error
		if p.keeper, err = startHolder(cmd); err != nil {
			return probed{}, err
		}
		if lines, err = p.keeper.ready(); err != nil {
			return probed{}, failed(err)
		}
	} else {
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			return probed{}, fmt.Errorf("user namespaces: %w", err) // an *fs.PathError: see setup
		}
		if err := cmd.Wait(); err != nil {
			return probed{}, failed(err)
		}
		lines = strings.Split(strings.TrimSpace(stdout.String()), "\n")
	}
	if tmpSize == 0 {
		return p, nil
	}
	for _, line := range lines {
		if why, ok := strings.CutPrefix(line, helper.TmpFailed); ok {
			p.tmpErr = errors.New(why)
			return p, nil
		}
	}
	theirs.Close() // the helper's copy: receiveTmp sees the end of what was sent
	p.tmp, p.tmpErr = receiveTmp(mine)
	return p, nil
}
