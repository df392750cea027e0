package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The namespace probe makes the session's tmpfs too: a probe that could
// not make the tmpfs still finds namespaces (the session goes on without a
// tmpfs of its own, and says why), and one that failed is a probe that
// failed, whatever it said of the tmpfs, and keeps nothing.
func TestTheProbeMakesTheSessionsTmpfs(t *testing.T) {
	needLandlock(t)
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), TempSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	l := sb.impl.(*linux)

	p, err := l.probe(1 << 20)
	if err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	if p.tmpErr != nil {
		t.Skipf("no tmpfs of its own here: %v", p.tmpErr)
	}
	tmp := p.tmp
	if free, size, ok := tmpUsage(tmp); !ok || size != 1<<20 || free <= 0 {
		t.Fatalf("the probe's tmpfs: %d bytes free of %d (%v), want 1 MiB", free, size, ok)
	}
	tmp.Close()

	for _, c := range []struct {
		name, script, tmpErr, err string
	}{
		{"no tmpfs", "echo 'tmpfs: fsopen tmpfs: function not implemented'\n", "fsopen tmpfs: function not implemented", ""},
		{"no namespaces", "echo 'tmpfs: fsopen tmpfs: no' ; echo 'agent sandbox: unshare: operation not permitted' >&2; exit 125\n", "", "operation not permitted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "helper")
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+c.script), 0o755); err != nil {
				t.Fatal(err)
			}
			l.exe = exe
			p, err := l.probe(1 << 20)
			tmp, tmpErr := p.tmp, p.tmpErr
			if tmp != nil {
				t.Fatal("a tmpfs came from a helper that sent none")
			}
			if got := errText(tmpErr); !strings.Contains(got, c.tmpErr) || (c.tmpErr == "") != (tmpErr == nil) {
				t.Errorf("the tmpfs's error: %q, want %q", got, c.tmpErr)
			}
			if got := errText(err); !strings.Contains(got, c.err) || (c.err == "") != (err == nil) {
				t.Errorf("the probe's error: %q, want %q", got, c.err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
