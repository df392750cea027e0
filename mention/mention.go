// Package mention handles "@path" in a prompt, for the interface and for
// headless runs alike: it completes file and directory names as they are
// typed (fuzzy, .gitignore honoured, from the working directory) and, when
// the prompt is sent, attaches each mentioned file's content as read_file
// shows it (a directory's listing as list_files shows it) to the prompt.
// Every access goes through the tools' os.Root, so a mention never reaches
// outside the working directory; a path that cannot be read is left as
// plain text.
package mention

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
)

// Mentions completes and attaches the mentions of one working directory.
// It is safe for concurrent use.
type Mentions struct {
	root       *os.Root
	read, list tools.Tool

	mu      sync.Mutex
	paths   []string  // the files and directories completion offers (directories end in "/")
	lower   []string  // paths in lower case
	listed  time.Time // when paths was walked
	maxAge  time.Duration
	maxWalk int
}

// New returns the mentions of the working directory root. Reads of
// attached files are recorded in tracker as read_file's are (nil keeps
// them apart), so the model may change a file it was given without reading
// it again.
func New(root *os.Root, tracker *fs.Tracker) *Mentions {
	return &Mentions{
		root: root, read: fs.ReadFile(root, tracker), list: fs.ListFiles(root),
		maxAge: listMaxAge, maxWalk: listMaxPaths,
	}
}

// Find returns the paths mentioned in prompt, in order and without
// duplicates: each word that starts with "@" at the start of the prompt or
// after white space, without the "@". A mention ends at white space.
func Find(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(prompt) {
		p, ok := strings.CutPrefix(w, "@")
		if !ok || p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// trailing is the punctuation a sentence may put after a mention ("look at
// @main.go, then ..."); it is dropped when the path with it does not exist.
const trailing = ",.;:!?)]}'\""
