package fs

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"

	"github.com/agent-dev/agent/tools"
)

//go:embed edit_file.md
var editFileDescription string

const editFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file to edit"},
    "old_string": {"type": "string", "description": "exact text to replace"},
    "new_string": {"type": "string", "description": "text to put in its place"},
    "replace_all": {"type": "boolean", "description": "replace every occurrence; default false"}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`

type editFile struct{ editor }

// EditFile returns the edit_file tool confined to root. It records its
// changes in opts.Tracker and tells opts.Journal about them.
func EditFile(root *os.Root, opts Options) tools.Tool { return &editFile{newEditor(root, opts)} }

var _ tools.Tool = (*editFile)(nil)

func (*editFile) Definition() tools.Definition {
	return tools.Definition{
		Name:        "edit_file",
		Description: editFileDescription,
		Schema:      json.RawMessage(editFileSchema),
		Effects:     tools.ReadsWorkspace | tools.WritesWorkspace,
		Kind:        tools.KindEdit,
		Summarize:   summarizePath,
	}
}

type editFileArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// Run makes the edit. Its Meta holds path, diff, added, removed and created
// (see write_file); an edit that cannot be made is an error result and
// changes nothing.
func (t *editFile) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return t.run(ctx, call, t.plan)
}

// Preview returns what Run would return, changing nothing: the same Meta
// and diff, or the same error result.
func (t *editFile) Preview(ctx context.Context, call tools.Call) (tools.Result, error) {
	return t.preview(ctx, call, t.plan)
}

func (t *editFile) plan(ctx context.Context, tracker *Tracker, raw json.RawMessage) (c *change, bad *tools.Result, err error) {
	var args editFileArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return refuse("invalid arguments: %v", err)
	}
	switch {
	case args.OldString == "":
		return refuse("old_string is empty, and creating a file is not an edit: use write_file. To insert text, put a line next to it in old_string and again in new_string.")
	case args.OldString == args.NewString:
		return refuse("old_string and new_string are the same, so there is nothing to change")
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
		return refuse("%s does not exist; edit_file changes existing files, create it with write_file", args.Path)
	}
	data, err := t.wd.readBefore(ctx, tg)
	if err != nil {
		return refuse("%s", describe(args.Path, err))
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return refuse("%s looks binary (a NUL byte in its first 8 KiB); edit_file changes text files only", args.Path)
	}
	s := string(data)

	// Try the strings with the file's line endings, then as given (for a
	// file that mixes them).
	type pair struct{ old, new string }
	given := pair{args.OldString, args.NewString}
	norm := pair{toLF(given.old), toLF(given.new)}
	if usesCRLF(s) {
		norm = pair{toCRLF(given.old), toCRLF(given.new)}
	}
	tries := []pair{norm}
	if norm != given {
		tries = append(tries, given)
	}
	for _, p := range tries {
		at := occurrences(s, p.old)
		if len(at) == 0 {
			continue
		}
		if p.old == p.new {
			return refuse("old_string and new_string differ only in line endings, which follow the file's, so there is nothing to change")
		}
		if !args.ReplaceAll {
			if len(at) == 1 {
				if j := overlapping(s, p.old, at[0]); j >= 0 {
					at = append(at, j)
				}
			}
			if len(at) > 1 {
				return refuse("old_string occurs %d times in %s, at lines %s; add surrounding lines to old_string so that it occurs once, or set replace_all to replace every occurrence",
					len(at), args.Path, listLines(lineNumbers(s, at)))
			}
		}
		after, edits := replaceAt(s, at, len(p.old), p.new)
		c = &change{rel: rel, t: tg, existed: true, link: link, mode: keptMode(fi), before: data, after: []byte(after), edits: edits, verb: "Edited"}
		if len(at) > 1 {
			c.note = fmt.Sprintf("%d replacements", len(at))
		}
		return c, nil, nil
	}
	hint := notFoundHint(s, args.OldString)
	if hint == "" {
		hint = "read the file again (it may have changed) and copy the text exactly"
	}
	return refuse("old_string was not found in %s; %s", args.Path, hint)
}
