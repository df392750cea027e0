package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-dev/agent/tools"
)

//go:embed list_files.md
var listFilesDescription string

const listFilesSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "glob relative to path, default **"},
    "path": {"type": "string", "description": "directory to list, default the working directory"}
  },
  "additionalProperties": false
}`

// listFilesLimit is the most paths one call prints.
const listFilesLimit = 1000

type listFiles struct{ wd *workdir }

// ListFiles returns the list_files tool confined to root.
func ListFiles(root *os.Root) tools.Tool { return &listFiles{wd: newWorkdir(root)} }

var _ tools.Tool = (*listFiles)(nil)

func (*listFiles) Definition() tools.Definition {
	return tools.Definition{
		Name:        "list_files",
		Description: listFilesDescription,
		Schema:      json.RawMessage(listFilesSchema),
		ReadOnly:    true,
		Effects:     tools.ReadsWorkspace,
		Kind:        tools.KindSearch,
		Summarize:   summarizeList,
	}
}

type listFilesArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

func (t *listFiles) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	raw := call.Args
	var args listFilesArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	pattern := strings.TrimPrefix(args.Pattern, "./")
	if pattern == "" {
		pattern = "**"
	}
	if !doublestar.ValidatePattern(pattern) {
		return tools.Errorf("invalid glob pattern %q", args.Pattern), nil
	}
	start, err := t.wd.rel(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if res, ok := checkDir(t.wd.root, start, args.Path); !ok {
		return res, nil
	}
	var paths []string
	err = walk(ctx, t.wd.root, start, func(f walkFile) error {
		if matchGlob(pattern, below(start, f.rel), false) {
			paths = append(paths, f.rel)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("%s", describe(args.Path, err)), nil
	}
	slices.Sort(paths)
	total := len(paths)
	meta := map[string]any{"count": total, "shown": min(total, listFilesLimit)}
	if total == 0 {
		msg := fmt.Sprintf("no files match %q", pattern)
		if !strings.Contains(pattern, "/") && pattern != "**" {
			msg += fmt.Sprintf(" at the top level (a pattern without / matches only there; try \"**/%s\")", pattern)
		}
		return tools.Result{Content: msg, Meta: meta}, nil
	}
	var b strings.Builder
	for _, p := range paths[:min(total, listFilesLimit)] {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if total > listFilesLimit {
		fmt.Fprintf(&b, "(%d more files not shown; narrow pattern or path)\n", total-listFilesLimit)
	}
	return tools.Result{Content: b.String(), Meta: meta}, nil
}

// below returns rel (a file's slash path relative to the root) relative to
// the directory start.
func below(start, rel string) string {
	if start == "." {
		return rel
	}
	return rel[len(start)+1:]
}

// matchGlob reports whether the doublestar pattern matches rel. With
// anyDepth, a pattern without "/" is matched against the last element, as
// ripgrep's -g does.
func matchGlob(pattern, rel string, anyDepth bool) bool {
	if pattern == "**" {
		return true
	}
	if anyDepth && !strings.Contains(pattern, "/") {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(pattern, rel)
	return ok
}

// checkDir returns an error result unless start (from rel; asked is what the
// model sent) is a directory inside the root.
func checkDir(root *os.Root, start, asked string) (tools.Result, bool) {
	fi, err := root.Stat(native(start))
	if err != nil {
		return tools.Errorf("%s", describe(asked, err)), false
	}
	if !fi.IsDir() {
		return tools.Errorf("%s is a file, not a directory; use read_file to read it", asked), false
	}
	return tools.Result{}, true
}
