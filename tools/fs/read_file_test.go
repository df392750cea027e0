package fs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/toolstest"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	var ten, big strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %d\n", i)
	}
	for i := 1; i <= 30000; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	long := strings.Repeat("é", 2500)
	root, _ := tree(t, map[string]string{
		"ten.txt":     ten.String(),
		"big.txt":     big.String(),
		"long.txt":    "short\n" + long + "\nafter\n",
		"crlf.txt":    "a\r\nb\r\n",
		"nonl.txt":    "a\nb",
		"empty.txt":   "",
		"bin.dat":     "text\x00more",
		"dir/x.txt":   "x",
		"utf8.txt":    "naïve ☃\n",
		"late-nul.js": strings.Repeat("x", 9000) + "\x00\n",
	})
	tool := ReadFile(root)
	tests := []struct {
		name, args string
		want       string // exact content, or a substring when wantErr
		wantErr    bool
	}{
		{"whole", `{"path": "ten.txt"}`, numbered(1, 10), false},
		{"range", `{"path": "ten.txt", "offset": 3, "limit": 2}`, numbered(3, 4) + "(lines 3-4 of 10; continue with offset=5)\n", false},
		{"tail", `{"path": "ten.txt", "offset": 9}`, numbered(9, 10) + "(lines 9-10 of 10)\n", false},
		{"limit only", `{"path": "ten.txt", "limit": 1}`, numbered(1, 1) + "(lines 1-1 of 10; continue with offset=2)\n", false},
		{"last line", `{"path": "ten.txt", "offset": 10, "limit": 5}`, numbered(10, 10) + "(lines 10-10 of 10)\n", false},
		{"past the end", `{"path": "ten.txt", "offset": 11}`, "has 10 lines", true},
		{"crlf", `{"path": "crlf.txt"}`, "     1\ta\n     2\tb\n", false},
		{"no final newline", `{"path": "nonl.txt"}`, "     1\ta\n     2\tb\n", false},
		{"no final newline range", `{"path": "nonl.txt", "limit": 1}`, "     1\ta\n(lines 1-1 of 2; continue with offset=2)\n", false},
		{"empty", `{"path": "empty.txt"}`, "(empty.txt is empty)", false},
		{"utf8", `{"path": "utf8.txt"}`, "     1\tnaïve ☃\n", false},
		{"binary", `{"path": "bin.dat"}`, "binary", true},
		{"nul after 8 KiB is text", `{"path": "late-nul.js", "offset": 2}`, "past the end", true},
		{"directory", `{"path": "dir"}`, "use list_files", true},
		{"root", `{"path": "."}`, "directory", true},
		{"missing", `{"path": "nope.txt"}`, "does not exist", true},
		{"big without range", `{"path": "big.txt"}`, "(30000 lines)", true},
		{"big by range", `{"path": "big.txt", "offset": 29999}`, numbered(29999, 30000) + "(lines 29999-30000 of 30000)\n", false},
		{"big by limit", `{"path": "big.txt", "limit": 2}`, numbered(1, 2) + "(lines 1-2 of 30000; continue with offset=3)\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError != tt.wantErr {
				t.Fatalf("IsError = %v, content %q", res.IsError, res.Content)
			}
			if tt.wantErr && !strings.Contains(res.Content, tt.want) || !tt.wantErr && res.Content != tt.want {
				t.Errorf("got %q, want %q", res.Content, tt.want)
			}
		})
	}
	t.Run("long line", func(t *testing.T) {
		res := call(t, tool, `{"path": "long.txt"}`)
		got := lines(res.Content)
		if len(got) != 3 || got[0] != "     1\tshort" || got[2] != "     3\tafter" {
			t.Fatalf("got %q", got)
		}
		want := "     2\t" + strings.Repeat("é", readMaxLineChars) + "… [line cut; 5000 bytes in all]"
		if got[1] != want {
			t.Errorf("long line = %q…", got[1][:40])
		}
		if res.Meta["cut_lines"] != 1 || res.Meta["lines"] != 3 {
			t.Errorf("meta = %v", res.Meta)
		}
	})
}

func TestReadFileConformance(t *testing.T) {
	root, _ := tree(t, map[string]string{"a.txt": "a\n", "d/x": ""})
	toolstest.Run(t, toolstest.Suite{
		Tool:          ReadFile(root),
		SchemaInvalid: []string{`{}`, `{"path": 1}`, `{"path": "a.txt", "offset": 0}`, `{"path": "a.txt", "limit": -1}`, `{"path": "a.txt", "offset": "2"}`},
		BadArgs:       []string{`{"path": "../a.txt"}`, `{"path": "/etc/passwd"}`, `{"path": "d"}`, `{"path": "missing"}`, `{"path": "a.txt", "offset": 5}`},
	})
}
