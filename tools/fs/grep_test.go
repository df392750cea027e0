package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

func TestGrep(t *testing.T) {
	root, _ := tree(t, map[string]string{
		"main.go":         "package main\n\nfunc main() {\n\terr := run()\n}\n",
		"cmd/run.go":      "package cmd\n\n// Func Main is not here\nfunc run() error {\n\tvar err error\n\treturn err\n}\n",
		"cmd/run_test.go": "package cmd\n\nfunc TestRun(t *testing.T) {}\n",
		"docs/notes.md":   "FUNC MAIN in capitals\n",
		"bin/tool":        "func main\x00\x01\x02",
		"ignored/x.go":    "func main() {}\n",
		".gitignore":      "ignored/\n",
		"long.txt":        strings.Repeat("a", 400) + " needle\n",
		"kelvin.txt":      "\u212Aelvin\n",
		"crlf.txt":        "one needle\r\ntwo\r\n",
		"a.b/x.txt":       "needle in dotted dir\n",
		"a/x.txt":         "needle in a\n",
	})
	tool := Grep(root)
	tests := []struct {
		name, args string
		want       string
	}{
		{"literal", `{"pattern": "func main"}`, "main.go:3:func main() {\n"},
		{"regexp", `{"pattern": "err(or)?\\s*:?="}`, "main.go:4:\terr := run()\n"},
		{"ignore case", `{"pattern": "func main", "ignore_case": true}`,
			"cmd/run.go:3:// Func Main is not here\ndocs/notes.md:1:FUNC MAIN in capitals\nmain.go:3:func main() {\n"},
		{"inline flag", `{"pattern": "(?i)func main", "glob": "*.md"}`, "docs/notes.md:1:FUNC MAIN in capitals\n"},
		{"kelvin sign folds to k", `{"pattern": "kelvin", "ignore_case": true}`, "kelvin.txt:1:\u212Aelvin\n"},
		{"glob by name at any depth", `{"pattern": "package", "glob": "*_test.go"}`, "cmd/run_test.go:1:package cmd\n"},
		{"glob by path", `{"pattern": "package", "glob": "cmd/*.go"}`, "cmd/run.go:1:package cmd\ncmd/run_test.go:1:package cmd\n"},
		{"glob relative to path", `{"pattern": "package", "path": "cmd", "glob": "run.go"}`, "cmd/run.go:1:package cmd\n"},
		{"path is a file", `{"pattern": "err", "path": "cmd/run.go"}`, "cmd/run.go:4:func run() error {\ncmd/run.go:5:\tvar err error\ncmd/run.go:6:\treturn err\n"},
		{"explicit ignored file is searched", `{"pattern": "func", "path": "ignored/x.go"}`, "ignored/x.go:1:func main() {}\n"},
		{"anchors are per line", `{"pattern": "^\\treturn err$"}`, "cmd/run.go:6:\treturn err\n"},
		{"no match across lines", `{"pattern": "here\\nfunc"}`, `no matches for "here\\nfunc"`},
		{"crlf", `{"pattern": "needle$", "glob": "crlf.txt"}`, `no matches for "needle$"`},
		{"crlf literal", `{"pattern": "one"}`, "crlf.txt:1:one needle\n"},
		{"sorted by path", `{"pattern": "needle in"}`, "a.b/x.txt:1:needle in dotted dir\na/x.txt:1:needle in a\n"},
		{"long lines cut", `{"pattern": "needle", "glob": "long.txt"}`, "long.txt:1:" + strings.Repeat("a", grepMaxChars) + "…\n"},
		{"no match", `{"pattern": "zebra"}`, `no matches for "zebra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError || res.Content != tt.want {
				t.Errorf("got %+v\nwant %q", res, tt.want)
			}
		})
	}
	res := call(t, tool, `{"pattern": "func main"}`)
	if res.Meta["binary_skipped"] != 1 {
		t.Errorf("meta = %v, want one binary file skipped", res.Meta)
	}
	for _, args := range []string{`{"pattern": "("}`, `{"pattern": "x", "path": "bin/tool"}`, `{"pattern": "x", "glob": "[a-"}`} {
		if res := call(t, tool, args); !res.IsError {
			t.Errorf("%s: want an error result, got %q", args, res.Content)
		}
	}
	if res := call(t, tool, `{"pattern": "(?<name>x"}`); !strings.Contains(res.Content, "invalid regexp: error parsing regexp") {
		t.Errorf("invalid regexp message = %q", res.Content)
	}
}

func TestGrepLimit(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("match\nnope\n", 10)
	}
	root, _ := tree(t, files)
	res := call(t, Grep(root), `{"pattern": "match"}`)
	got := lines(res.Content)
	if len(got) != grepLimit+1 {
		t.Fatalf("got %d lines, want %d and a note", len(got), grepLimit+1)
	}
	// The first 200 in path order: 20 files of 10 matches each.
	if got[0] != "f00.txt:1:match" || got[grepLimit-1] != "f19.txt:19:match" {
		t.Errorf("first %q, last %q", got[0], got[grepLimit-1])
	}
	if want := "(400 more matches not shown, 600 matches in 60 files in all; narrow pattern, path or glob)"; got[grepLimit] != want {
		t.Errorf("note = %q, want %q", got[grepLimit], want)
	}
	if res.Meta["matches"] != 600 || res.Meta["files"] != 60 || res.Meta["shown"] != grepLimit {
		t.Errorf("meta = %v", res.Meta)
	}
}

// TestMatcherAgreesWithRegexp compares the literal shortcuts against the
// plain regexp run on each line.
func TestMatcherAgreesWithRegexp(t *testing.T) {
	text := []byte("func main() {\n\terr := x\n\tError = 2\nFUNC MAIN\nfUnC mAiN()\nerror:=\nK\u212Aelvin KELVIN\nfunc  main\n\nlast func main")
	patterns := []string{`func main`, `err(or)?\s*:?=`, `(?i)func main`, `(?i)kelvin`, `main\(\)`, `^func`, `main$`,
		`x+`, `(?i)err`, `\bmain\b`, `a(bc)+`, `[fF]unc`, `func|main`, `e`, `^$`, `.`}
	for _, p := range patterns {
		for _, fold := range []bool{false, true} {
			m, err := newMatcher(p, fold)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			m.scan(text, func(s, e int) bool { got = append(got, string(text[s:e])); return true })
			var want []string
			re := regexp.MustCompile(map[bool]string{false: "", true: "(?i)"}[fold] + p)
			for l := range bytes.Lines(text) {
				l = bytes.TrimSuffix(l, []byte("\n"))
				if re.Match(l) {
					want = append(want, string(l))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s (fold %v): got %q, want %q", p, fold, got, want)
			}
		}
	}
}

func TestGrepConformance(t *testing.T) {
	root, _ := tree(t, map[string]string{"a.txt": "a\n"})
	toolstest.Run(t, toolstest.Suite{
		Tool:          Grep(root),
		SchemaInvalid: []string{`{}`, `{"pattern": ""}`, `{"pattern": 1}`, `{"pattern": "a", "ignore_case": "yes"}`, `{"pattern": "a", "x": 1}`},
		BadArgs:       []string{`{"pattern": "a", "path": ".."}`, `{"pattern": "a", "path": "/"}`, `{"pattern": "[z-a]"}`, `{"pattern": "a", "path": "missing"}`},
	})
}

// A cancelled grep stops with the context's error (the conformance
// suite's race against a quick search would be flaky, so it is done here).
func TestGrepCancelled(t *testing.T) {
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("d%d/f%d.txt", i%10, i)] = "a\n"
	}
	root, _ := tree(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range []tools.Tool{Grep(root), ListFiles(root)} {
		res, err := tool.Run(ctx, tools.Call{Args: json.RawMessage(`{"pattern": "a"}`)})
		if err == nil && !res.IsError {
			t.Errorf("%s: a cancelled run reported success", tool.Definition().Name)
		}
	}
}

// endless is an endless text file that cancels its context on the first
// read: a search that does not check the context between chunks never ends.
type endless struct{ cancel context.CancelFunc }

func (e endless) Read(p []byte) (int, error) {
	e.cancel()
	for i := range p {
		p[i] = "abc\n"[i%4]
	}
	return len(p), nil
}

func TestSearchStopsInsideAFileWhenCancelled(t *testing.T) {
	m, err := newMatcher("[A-Z][0-9]", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := newSearcher(m).search(ctx, endless{cancel}, "endless.txt", true)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("search returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("search of an endless file kept going after cancellation")
	}
}

// TestGrepCancelledInsideAFile holds grep to the conformance suite's
// cancellation checks on a single file and on a tree.
func TestGrepCancelledInsideAFile(t *testing.T) {
	root, _ := tree(t, map[string]string{
		"big.log": strings.Repeat("a line of log text with nothing special in it x9\n", 1<<20/50),
	})
	for _, args := range []string{`{"pattern":"[A-Z][0-9]","path":"big.log"}`, `{"pattern":"[A-Z][0-9]"}`} {
		toolstest.Run(t, toolstest.Suite{Tool: Grep(root), SlowArgs: args})
	}
}
