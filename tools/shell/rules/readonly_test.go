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
	} {
		if r := ro.Check(cmd); r.Verdict == Allow {
			t.Errorf("%q: allowed, want it refused (%s)", cmd, r.Reason)
		}
	}
}
