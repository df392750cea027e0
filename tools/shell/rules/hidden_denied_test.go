package rules

import "testing"

// MEDIUM. namesDenied looks only at exact arguments and only at a whole
// argument: a runner no rule allows that gets the denied command as a word
// known at run time, or as a script for a shell, is a plain "no rule
// allows" line (Unresolved false), which auto mode runs unasked although
// a deny rule names what it runs. `$CMD x` is Unresolved; `flock f $CMD x`
// must be too.
func TestUnknownRunnerHidesDeniedCommand(t *testing.T) {
	set, err := Compile([]string{"echo", "printf"}, []string{"rm -rf"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		`flock f "$CMD" -rf x`,
		"flock f $(echo rm) -rf x",
		"strace -f $(printf rm) -rf x",
		"flock f ${X:-rm} -rf x",
		"flock f /bin/r? -rf x",
		"flock f sh -c 'rm -rf x'",
		"script -qc 'rm -rf x' /dev/null",
	} {
		if got := set.Check(cmd); got.Verdict != Deny && !got.Unresolved {
			t.Errorf("Check(%q) = %v, Unresolved false (%s): auto mode runs it unasked", cmd, got.Verdict, got.Reason)
		}
	}
}

// LOW. With a deny rule "rm -rf", everyday lines whose argument is merely
// the word "rm" are Unresolved, so they are asked about in every mode,
// yolo included, and refused headless: `git rm`, `grep -rn rm .`,
// `docker rm`. git's rm subcommand is not the program rm.
func TestDeniedNameAsPlainArgument(t *testing.T) {
	set, err := Compile(nil, []string{"rm -rf"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git rm --cached x", "grep -rn rm .", "docker rm c1"} {
		if got := set.Check(cmd); got.Unresolved {
			t.Errorf("Check(%q).Unresolved = true (%s): asked even in yolo, refused headless", cmd, got.Reason)
		}
	}
}
