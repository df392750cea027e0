// Package mention handles "@path" in a prompt, for the interface and for
// headless runs alike: it completes file and directory names as they are
// typed (fuzzy, .gitignore honoured, from the working directory) and, when
// the prompt is sent, attaches each mentioned file's content as read_file
// shows it (a directory's listing as list_files shows it) to the prompt.
// Every access goes through the tools' os.Root, so a mention never reaches
// outside the working directory; a path that cannot be read is left as
// plain text. .gitignore keeps files out of completion and of a
// directory's listing only: a file named in full is attached, as read_file
// would read it when asked. The file tools and their walk come from the
// caller (Files), so the package, and the interface that imports it, know
// no concrete tool.
package mention

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/tools"
)

// Files is how mentions reach the working directory's files: cmd fills it
// with the file tools (package tools/fs) on the same os.Root it gives New.
type Files struct {
	// Read is read_file, run with the arguments {"path", "limit"} to attach
	// a file; List is list_files, run with {"path"} to attach a
	// directory's listing. Their results' Content (and Read's Images) are
	// what the prompt gets; an error result leaves the mention as text.
	// Both are required.
	Read, List tools.Tool
	// Walk calls visit with the slash path, relative to root, of each file
	// completion may offer (.git, what .gitignore excludes and symlinks
	// left out), until visit returns an error, which it returns; it
	// returns ctx.Err() once ctx is cancelled. Nil offers no paths but
	// MCP resources.
	Walk func(ctx context.Context, root *os.Root, visit func(rel string) error) error
}

// Mentions completes and attaches the mentions of one working directory.
// It is safe for concurrent use.
type Mentions struct {
	root       *os.Root
	read, list tools.Tool
	walk       func(ctx context.Context, root *os.Root, visit func(rel string) error) error

	mu      sync.Mutex
	paths   []string  // the files and directories completion offers (directories end in "/")
	lower   []string  // paths in lower case
	listed  time.Time // when paths was walked
	maxAge  time.Duration
	maxWalk int
	res     Resources // MCP resources, nil without
}

// New returns the mentions of the working directory root, attached and
// completed through files. An attached file is read by files.Read as a
// call of the prompt's session, so a read_file that records its reads
// (the session's tracker) lets the model change a file it was given
// without reading it again.
func New(root *os.Root, files Files) *Mentions {
	return &Mentions{
		root: root, read: files.Read, list: files.List, walk: files.Walk,
		maxAge: listMaxAge, maxWalk: listMaxPaths,
	}
}

// Find returns the paths mentioned in prompt, in order and without
// duplicates: each word that starts with "@" at the start of the prompt or
// after white space, without the "@". A mention ends at white space, or,
// for a path with spaces, is written in double quotes (@"my notes.txt",
// as completion writes it); a quote left open runs to the end of its line.
func Find(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(prompt); i++ {
		if prompt[i] != '@' || (i > 0 && !isSpace(prompt[i-1])) {
			continue
		}
		rest := prompt[i+1:]
		var p string
		if q, ok := strings.CutPrefix(rest, `"`); ok {
			end := strings.IndexAny(q, "\"\n")
			if end < 0 {
				end = len(q)
			}
			p = q[:end]
			i += 1 + end + 1
		} else {
			end := strings.IndexFunc(rest, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
			if end < 0 {
				end = len(rest)
			}
			p = rest[:end]
			i += end
		}
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// isSpace reports whether c is ASCII white space, which ends a mention.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// trailing is the punctuation a sentence may put after a mention ("look at
// @main.go, then ..."); it is dropped when the path with it does not exist.
const trailing = ",.;:!?)]}'\""
