package rules

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzAllowed are the names a command may have in an allowed command line
// under fuzzAllow: the allowed names and the transparent wrappers.
var fuzzAllowed = map[string]bool{
	"ls": true, "echo": true, "cat": true, "git": true, "go": true, "find": true, "sudo": true,
	"env": true, "command": true, "builtin": true, "exec": true, "nohup": true, "time": true,
	"timeout": true, "stdbuf": true, "ionice": true, "setsid": true, "nice": true, "busybox": true,
	"xargs": true, "bash": true, "sh": true, "dash": true, "ash": true, "zsh": true, "ksh": true, "mksh": true,
}

func FuzzCheck(f *testing.F) {
	for _, tc := range briefCases {
		f.Add(tc.cmd)
	}
	for _, tc := range moreCases {
		f.Add(tc.cmd)
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "bash_scripts.txt")); err == nil {
		for _, script := range strings.Split(string(data), "\n---\n") {
			f.Add(script)
		}
	}
	set, err := Compile([]string{"ls", "echo", "cat", "git status", "go test", "find", "sudo"}, []string{"rm"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		res := set.check(cmd) // without Check's recover, so that panics show
		if res.Verdict < Ask || res.Verdict > Deny {
			t.Fatalf("Check(%q): verdict %d", cmd, res.Verdict)
		}
		if res.Reason == "" || strings.ContainsAny(res.Reason, "\r\n") {
			t.Fatalf("Check(%q): reason %q is not one non-empty line", cmd, res.Reason)
		}
		for _, c := range res.Commands {
			name, _, _ := strings.Cut(c, " ")
			if path.Base(name) == "rm" && res.Verdict == Allow {
				t.Fatalf("Check(%q) allows %q under deny rm: %q", cmd, c, res.Reason)
			}
			if res.Verdict == Allow && !fuzzAllowed[name] {
				t.Fatalf("Check(%q) allows %q, which no rule names: %q", cmd, c, res.Reason)
			}
		}
		if res.Verdict == Allow && len(res.Commands) == 0 {
			t.Fatalf("Check(%q) allows a command line without commands", cmd)
		}
	})
}
