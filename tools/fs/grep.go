package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/tools"
)

//go:embed grep.md
var grepDescription string

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "Go RE2 regular expression"},
    "path": {"type": "string", "description": "file or directory to search, default the working directory"},
    "glob": {"type": "string", "description": "only files matching this glob, e.g. *.go or src/**/*.ts"},
    "ignore_case": {"type": "boolean", "description": "case-insensitive; default false"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

const (
	grepLimit    = 200 // matches shown
	grepMaxChars = 300 // characters of a matching line shown
)

type grep struct{ wd *workdir }

// Grep returns the grep tool confined to root.
func Grep(root *os.Root) tools.Tool { return &grep{wd: newWorkdir(root)} }

var _ tools.Tool = (*grep)(nil)

func (*grep) Definition() tools.Definition {
	return tools.Definition{
		Name:        "grep",
		Description: grepDescription,
		Schema:      json.RawMessage(grepSchema),
		ReadOnly:    true,
		Effects:     tools.ReadsWorkspace,
		Kind:        tools.KindSearch,
		Summarize:   summarizeGrep,
	}
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
}

func (t *grep) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	raw := call.Args
	var args grepArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	m, err := newMatcher(args.Pattern, args.IgnoreCase)
	if err != nil {
		return tools.Errorf("invalid regexp: %v", err), nil
	}
	glob := strings.TrimPrefix(args.Glob, "./")
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return tools.Errorf("invalid glob %q", args.Glob), nil
	}
	start, err := t.wd.rel(args.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	// One resolution of start: the denied check reads the path it
	// reached, and the search opens it from the directory it holds.
	var tg *target
	var fi fs.FileInfo
	if start == "." {
		if fi, err = t.wd.root.Stat("."); err != nil {
			return tools.Errorf("%s", describe(args.Path, err)), nil
		}
	} else {
		if tg, err = t.wd.target(start); err != nil {
			return tools.Errorf("%s", describeTarget(args.Path, err)), nil
		}
		defer tg.close()
		if t.wd.deniedAt(start, tg.real) {
			return tools.Errorf(errCredentials, args.Path), nil
		}
		if fi = tg.fi; fi == nil {
			return tools.Errorf("%s does not exist", args.Path), nil
		}
	}
	c := newCollector(grepLimit)
	switch {
	case fi.Mode().IsRegular():
		fm, msg := t.searchOne(ctx, m, start, args.Path, tg)
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		if msg != "" {
			return tools.Errorf("%s", msg), nil
		}
		c.add(fm)
	case !fi.IsDir():
		return tools.Errorf("%s is not a regular file or directory", args.Path), nil
	default:
		if err := t.searchTree(ctx, m, start, glob, c, tg); err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, ctx.Err()
			}
			return tools.Errorf("%s", describe(args.Path, err)), nil
		}
	}
	return c.result(args.Pattern), nil
}

// searchOne searches the single file rel (asked is what the model sent);
// the message says what went wrong, if anything did.
func (t *grep) searchOne(ctx context.Context, m *matcher, rel, asked string, tg *target) (fileMatches, string) {
	f, err := tg.open()
	if err != nil {
		return fileMatches{}, describe(asked, err)
	}
	defer f.Close()
	fm, binary, err := newSearcher(m).search(ctx, f, rel, true)
	switch {
	case err != nil:
		return fm, fmt.Sprintf("reading %s: %v", asked, err)
	case binary:
		return fm, fmt.Sprintf("%s looks binary (a NUL byte in its first 8 KiB); grep searches text files only", asked)
	}
	return fm, ""
}

// searchTree searches the files below the directory start (tg, its one
// resolution; nil for the root) with one walker feeding GOMAXPROCS
// searchers.
func (t *grep) searchTree(ctx context.Context, m *matcher, start, glob string, c *collector, tg *target) error {
	if tg != nil {
		// Below a start reached through symlinks, the files are named by
		// the path the resolution reached: the one checked.
		start = tg.real
	}
	g, ctx := errgroup.WithContext(ctx)
	files := make(chan walkFile, 256)
	g.Go(func() error {
		defer close(files)
		var d *dirRef
		if tg == nil {
			var err error
			if d, err = openStart(t.wd.root, start); err != nil {
				return err
			}
		} else {
			var err error
			if d, err = openTarget(tg); err != nil {
				return err
			}
		}
		return walkOpened(ctx, t.wd.root, start, d, func(f walkFile) error {
			if glob != "" && !matchGlob(glob, below(start, f.rel), true) || t.wd.walkDenied(f.rel) {
				return nil
			}
			f.dir.acquire()
			select {
			case files <- f:
				return nil
			case <-ctx.Done():
				f.dir.release()
				return ctx.Err()
			}
		})
	})
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			s := newSearcher(m)
			for f := range files {
				if ctx.Err() != nil {
					f.dir.release()
					continue
				}
				fh, err := f.dir.open(f.name)
				f.dir.release()
				if err != nil {
					c.unreadable()
					continue
				}
				fm, binary, err := s.search(ctx, fh, f.rel, c.wants(f.rel))
				fh.Close()
				switch {
				case err != nil:
					c.unreadable()
				case binary:
					c.binary()
				default:
					c.add(fm)
				}
			}
			return ctx.Err()
		})
	}
	return g.Wait()
}

// fileMatches is what one file contributed.
type fileMatches struct {
	rel   string
	count int         // matching lines
	lines []matchLine // the first of them, at most grepLimit
}

type matchLine struct {
	n    int // 1-based line number
	text string
}

// result formats what c collected.
func (c *collector) result(pattern string) tools.Result {
	shown := c.top()
	meta := map[string]any{
		"matches": c.total, "files": c.files, "shown": len(shown),
		"binary_skipped": c.binaries, "unreadable": c.unreadables,
	}
	if c.total == 0 {
		return tools.Result{Content: fmt.Sprintf("no matches for %q", pattern), Meta: meta}
	}
	var b strings.Builder
	for _, l := range shown {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if c.total > len(shown) {
		fmt.Fprintf(&b, "(%d more matches not shown, %d matches in %d files in all; narrow pattern, path or glob)\n",
			c.total-len(shown), c.total, c.files)
	}
	return tools.Result{Content: b.String(), Meta: meta}
}
