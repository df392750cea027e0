package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The namespace probe makes the session's tmpfs too, and with the network
// off keeps the session's network namespace: a probe that could not make
// the tmpfs still finds namespaces (the session goes on without a tmpfs of
// its own, and says why), and one that failed is a probe that failed,
// whatever it said of the tmpfs, and keeps nothing.
func TestTheProbeMakesTheSessionsTmpfs(t *testing.T) {
	needLandlock(t)
	sb, err := New(Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), TempSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	l := sb.impl.(*linux)

	p, err := l.probe(1<<20, false)
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
		hold                      bool
	}{
		{"no tmpfs", "echo 'tmpfs: fsopen tmpfs: function not implemented'\n", "fsopen tmpfs: function not implemented", "", false},
		{"no namespaces", "echo 'tmpfs: fsopen tmpfs: no' ; echo 'agent sandbox: unshare: operation not permitted' >&2; exit 125\n", "", "operation not permitted", false},
		// Keeping the network namespace: its lines come before "ready",
		// then it waits for its standard input to end.
		{"no tmpfs, kept", "echo 'tmpfs: fsopen tmpfs: no'; echo ready; cat >/dev/null\n", "fsopen tmpfs: no", "", true},
		{"no namespaces, kept", "echo 'agent sandbox: mount: permission denied' >&2; exit 125\n", "", "permission denied", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "helper")
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+c.script), 0o755); err != nil {
				t.Fatal(err)
			}
			l.exe = exe
			p, err := l.probe(1<<20, c.hold)
			tmp, tmpErr, holder := p.tmp, p.tmpErr, p.keeper
			if tmp != nil {
				t.Fatal("a tmpfs came from a helper that sent none")
			}
			if (holder != nil) != (c.hold && err == nil) {
				t.Errorf("the keeper of the network namespace: %v, want one: %v", holder != nil, c.hold && err == nil)
			}
			if holder != nil {
				holder.stop() // returns once the keeper saw its input end
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
