package rules

import (
	"errors"
	"strings"
	"testing"
)

var (
	testAllow = []string{"ls", "git status", "go test", "echo", "cat"}
	testDeny  = []string{"rm", "git push", "curl"}
)

func TestCheck(t *testing.T) {
	set, err := Compile(testAllow, testDeny)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range append(append([]checkCase{}, briefCases...), moreCases...) {
		got := set.check(tc.cmd)
		if got.Verdict != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("Check(%q) = %v %q, want %v with %q (commands %q)",
				tc.cmd, got.Verdict, got.Reason, tc.want, tc.reason, got.Commands)
		}
		if strings.ContainsAny(got.Reason, "\r\n") {
			t.Errorf("Check(%q): reason %q is not one line", tc.cmd, got.Reason)
		}
	}
}

func TestCheckCommands(t *testing.T) {
	set, err := Compile(testAllow, testDeny)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want []string
	}{
		{"ls -la && git status", []string{"ls -la", "git status"}},
		{`echo $(rm x) "a b" \c`, []string{"echo $(rm x) 'a b' c", "rm x"}},
		{"X=$(rm x) ls", []string{"rm x", "ls"}},
		{"env FOO=1 nice -n 5 ls", []string{"env FOO=1 nice -n 5 ls", "nice -n 5 ls", "ls"}},
		{"bash -c 'ls; cat x'", []string{"bash -c 'ls; cat x'", "ls", "cat x"}},
		{"sh -c 'ls'", []string{"sh -c ls", "ls"}},
		{`find . -exec rm {} \;`, []string{`find . -exec rm {} ';'`, "rm {}"}},
	}
	for _, tc := range tests {
		got := set.Check(tc.cmd).Commands
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Check(%q).Commands = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestDenyWins(t *testing.T) {
	set, err := Compile([]string{"rm", "git"}, []string{"rm", "git push"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm x", "git push origin", "ls > out; rm x", "eval x; git push"} {
		if got := set.Check(cmd); got.Verdict != Deny {
			t.Errorf("Check(%q) = %v %q, want deny", cmd, got.Verdict, got.Reason)
		}
	}
	if got := set.Check("git pull"); got.Verdict != Allow {
		t.Errorf("Check(git pull) = %v %q, want allow", got.Verdict, got.Reason)
	}
	// Allowed by "git", but the deny rule's words follow an option.
	if got := set.Check("git -C . push"); got.Verdict != Ask || !strings.Contains(got.Reason, `"git push"`) {
		t.Errorf("Check(git -C . push) = %v %q, want ask naming the deny rule", got.Verdict, got.Reason)
	}
}

func TestNilSet(t *testing.T) {
	var set *Set
	if !set.Empty() {
		t.Error("nil set is not empty")
	}
	tests := []checkCase{
		{"ls", Ask, "no rule allows: ls"},
		{"eval ls", Ask, "eval"},
		{"ls > out", Ask, "writes to out"},
		{"", Ask, "no command"},
	}
	for _, tc := range tests {
		got := set.Check(tc.cmd)
		if got.Verdict != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("nil Check(%q) = %v %q, want %v with %q", tc.cmd, got.Verdict, got.Reason, tc.want, tc.reason)
		}
	}
}

func TestCompile(t *testing.T) {
	for _, bad := range []string{"", "  ", "ls; rm", "$X", "ls *", "ls > x", "ls | cat", "a && b",
		"ls &", "X=1 ls", "/bin/ls", "ls (", "ls $(x)", "~/bin/x", "ls # c", "{a,b}", "if"} {
		_, err := Compile([]string{bad}, nil)
		if !errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("Compile(allow %q) error = %v, want ErrInvalidRule with the rule", bad, err)
		}
		if _, err := Compile(nil, []string{bad}); !errors.Is(err, ErrInvalidRule) {
			t.Errorf("Compile(deny %q) error = %v, want ErrInvalidRule", bad, err)
		}
	}
	set, err := Compile([]string{" npm run lint ", `'git' "status"`, `my\ tool x`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Empty() {
		t.Error("set is empty")
	}
	for _, cmd := range []string{"npm run lint --fix", "git status", `"my tool" x y`} {
		if got := set.Check(cmd); got.Verdict != Allow {
			t.Errorf("Check(%q) = %v %q, want allow", cmd, got.Verdict, got.Reason)
		}
	}
	if got := set.Check("npm run"); got.Verdict != Ask {
		t.Errorf("Check(npm run) = %v, want ask", got.Verdict)
	}
}

func TestVerdictString(t *testing.T) {
	if Ask.String() != "ask" || Allow.String() != "allow" || Deny.String() != "deny" {
		t.Error("wrong verdict names")
	}
}

// Unresolved separates lines that may hide a command from lines that only
// write files or are only not allowed.
func TestUnresolved(t *testing.T) {
	set, err := Compile([]string{"echo", "ls"}, []string{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]bool{
		"echo x > out.txt":        false,
		"find . -delete":          false,
		"make":                    false,
		"bash -c 'echo x > out'":  false,
		"$CMD x":                  true,
		"eval ls":                 true,
		"git -C . push && ls":     false,
		"flock f rm x":            true,
		"bash -c 'eval ls' > out": true,
		"echo x > \"$f\"":         true,
		"ls (":                    true,
	} {
		if got := set.Check(cmd); got.Unresolved != want {
			t.Errorf("Check(%q).Unresolved = %v, want %v (%s)", cmd, got.Unresolved, want, got.Reason)
		}
	}
}
