package sandbox

import "testing"

// The set-up's helper processes wait for Prepare or the first use: New
// begins nothing (begun at start they took the cores from the first
// request), Prepare begins it, and a sandbox closed before either makes
// nothing at all.
func TestSetUpWaitsForPrepareOrFirstUse(t *testing.T) {
	needLandlock(t)
	policy := func() Policy { return Policy{Mode: WorkspaceWrite, Dir: t.TempDir(), Network: true} }

	sb, err := New(policy())
	if err != nil {
		t.Fatal(err)
	}
	l := sb.impl.(*linux)
	if l.begun() {
		t.Fatal("the set-up began at New")
	}
	sb.Prepare()
	if !l.begun() {
		t.Fatal("Prepare did not begin the set-up")
	}
	if st := sb.Status(); !st.Enforced {
		t.Fatalf("not enforced after Prepare: %s", st.Reason)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}

	unused, err := New(policy())
	if err != nil {
		t.Fatal(err)
	}
	ul := unused.impl.(*linux)
	if err := unused.Close(); err != nil {
		t.Fatal(err)
	}
	unused.Prepare()
	if ul.begun() || ul.ruleset != nil {
		t.Fatal("a sandbox closed unused set itself up (at Close, or at a Prepare after it)")
	}
}
