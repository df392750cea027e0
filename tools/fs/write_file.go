package fs

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"os"
	"strings"

	"github.com/agent-dev/agent/tools"
)

//go:embed write_file.md
var writeFileDescription string

const writeFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file to create or overwrite"},
    "content": {"type": "string", "description": "the whole content of the file"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

type writeFile struct{ editor }

// WriteFile returns the write_file tool confined to root. It overwrites
// only files that opts.Tracker says the model has read, unchanged since;
// it records its writes there and tells opts.Journal about them.
func WriteFile(root *os.Root, opts Options) tools.Tool { return &writeFile{newEditor(root, opts)} }

var _ tools.Tool = (*writeFile)(nil)

func (*writeFile) Definition() tools.Definition {
	return tools.Definition{
		Name:        "write_file",
		Description: writeFileDescription,
		Schema:      json.RawMessage(writeFileSchema),
		Effects:     tools.ReadsWorkspace | tools.WritesWorkspace,
		Kind:        tools.KindEdit,
		Summarize:   summarizePath,
	}
}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Run writes the file. Its Meta holds path (slash, relative to the working
// directory), diff (unified, "--- a/path" or "--- /dev/null" for a new
// file, "+++ b/path", 3 lines of context; empty when nothing changed),
// added and removed (line counts) and created.
func (t *writeFile) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return t.run(ctx, call, t.plan)
}

// Preview returns what Run would return, changing nothing: the same Meta
// and diff, or the same error result.
func (t *writeFile) Preview(ctx context.Context, call tools.Call) (tools.Result, error) {
	return t.preview(ctx, call, t.plan)
}

func (t *writeFile) plan(ctx context.Context, tracker *Tracker, raw json.RawMessage) (c *change, bad *tools.Result, err error) {
	var args writeFileArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return refuse("invalid arguments: %v", err)
	}
	rel, err := t.wd.rel(args.Path)
	if err != nil {
		return refuse("%v", err)
	}
	tg, bad := t.wd.stat(args.Path, rel)
	if bad != nil {
		return nil, bad, nil
	}
	defer func() {
		if c == nil {
			tg.close()
		}
	}()
	fi, link := tg.fi, tg.link
	if fi == nil {
		return &change{rel: rel, t: tg, after: []byte(args.Content)}, nil, nil
	}
	data, err := t.wd.readBefore(ctx, tg)
	if err != nil {
		return refuse("%s", describe(args.Path, err))
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	known, read := tracker.lookup(rel)
	switch {
	case t.wd.deniedAt(rel, tg.real):
		// A credentials file the tools cannot read: its protection
		// decides (a person approves that one write, or nobody does).
	case !read:
		return refuse("%s exists and you have not read it in this session: read it with read_file first, then write it (or change part of it with edit_file)", args.Path)
	case known != sha256.Sum256(data):
		return refuse("%s has changed on disk since you last read it: read it again with read_file, then write it", args.Path)
	}
	content := args.Content
	if usesCRLF(string(data)) && !strings.Contains(content, "\r\n") {
		content = toCRLF(content)
	}
	return &change{rel: rel, t: tg, existed: true, link: link, mode: keptMode(fi), before: data, after: []byte(content), verb: "Wrote"}, nil, nil
}
