package rules

import "testing"

func TestReadOnlyCompiles(t *testing.T) {
	if _, err := Compile(readOnlyCommands, nil); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnlyAllowsReading(t *testing.T) {
	ro := ReadOnly()
	for _, cmd := range []string{
		"ls -la",
		"cat go.mod",
		"grep -rn Foo . | head -20",
		"git status",
		"git log --oneline -5",
		"git diff main -- main.go",
		"find . -name '*.go' -not -path './vendor/*'",
		"find . -name '*.go' | xargs grep -l Foo",
		"cd sub && ls",
		"wc -l $(git ls-files '*.go')",
		"grep foo x 2>/dev/null || echo none",
		"sed -n 1,20p main.go",
		"git branch --show-current",
		"go list -m -json all",
		"go list -f '{{.Dir}}' ./...",
		"go doc fmt.Println",
		"tree -a -L 2",
		"tree -I node_modules",
	} {
		if r := ro.Check(cmd); r.Verdict != Allow {
			t.Errorf("%q: %v (%s), want allow", cmd, r.Verdict, r.Reason)
		}
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	ro := ReadOnly()
	for _, cmd := range []string{
		"cat x > y",
		"cat x >> y",
		"ls | tee out.txt",
		"echo hi &> log",
		"find . -delete",
		"find . -name '*.o' -exec rm {} ';'",
		"find . -fprint out",
		"git diff --output=f",
		"git diff --output f",
		"git diff --ext-diff",
		"git -c core.pager='sh -c id' log",
		"git checkout main",
		"git branch newbranch",
		"sed -i s/a/b/ x",
		"sed -n 'w out' x",
		"sort -o out x",
		"awk '{print > \"out\"}' x",
		"awk 'BEGIN{system(\"rm x\")}'",
		"rm -rf x",
		"touch x",
		"make",
		"ls && mkdir d",
		"cat $(rm x)",
		"bash -c 'rm x'",
		"$CMD x",
		"eval ls",
		"xargs rm < list",
		"env rm x",
		"go env -w GOFLAGS=x",
		"go build ./...",
		"echo x | sh",
		// Options of the read-only programs that run a program or write a
		// file: go's build flags -toolexec and -exec, -mod=mod (which
		// rewrites go.mod), ag's --pager, tree's -o.
		"go list -toolexec 'sh -c id' ./...",
		"go list -toolexec=./evil.sh .",
		"go list --toolexec ./evil.sh .",
		"go list -mod=mod ./...",
		"go list -modfile=x.mod ./...",
		"go list $FLAGS ./...",
		"ag --pager 'sh -c id' foo",
		"ag --pager='sh -c id' foo",
		"tree -o out.txt",
		"tree -ao out.txt",
	} {
		if r := ro.Check(cmd); r.Verdict == Allow {
			t.Errorf("%q: allowed, want it refused (%s)", cmd, r.Reason)
		}
	}
}
