package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-dev/agent/instructions"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// instructionSets are the project instructions of each directory the
// session's loops work in (its own, a subagent's worktree), read once per
// directory, and which path-scoped rules each conversation was told.
type instructionSets struct {
	home  string
	paths protect.Paths // credentials and the agent's own files are never read
	mu    sync.Mutex
	sets  map[string]instructions.Set
	told  map[string]map[string]bool // session id -> rule paths told
}

// newInstructionSets reads instructions with the user's home; no file of
// paths' credentials, nor of the agent's own directories and files (its
// config, the data directory and the MCP servers' tokens there), is read,
// imported or not.
func newInstructionSets(paths protect.Paths) *instructionSets {
	home, _ := os.UserHomeDir()
	return &instructionSets{home: home, paths: paths, sets: map[string]instructions.Set{}, told: map[string]map[string]bool{}}
}

// denied reports whether abs may not be read for instructions in dir: a
// path the file tools do not read (credentials, a Read deny rule's), or
// the agent's own outside dir (a subagent's worktree lies in the data
// directory).
func (s *instructionSets) denied(dir, abs string) bool {
	if rel, err := filepath.Rel(s.paths.Dir, abs); err == nil && s.paths.ReadDenied(filepath.ToSlash(rel)) {
		return true
	}
	for _, c := range s.paths.Credentials { // on another volume than paths.Dir
		if isWithin(abs, c) {
			return true
		}
	}
	for _, a := range append(slices.Clone(s.paths.Agent), s.paths.AgentFiles...) {
		if isWithin(abs, a) && !isWithin(abs, dir) {
			return true
		}
	}
	return false
}

// isWithin reports whether path is root or lies below it.
func isWithin(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// of returns dir's instructions, read at the first ask.
func (s *instructionSets) of(dir string) instructions.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.sets[dir]; ok {
		return set
	}
	set := instructions.Load(instructions.Options{Dir: dir, Home: s.home, Denied: func(abs string) bool { return s.denied(dir, abs) }})
	s.sets[dir] = set
	return set
}

// notes wraps next (nil: none) with the path-scoped rules of dir: a call
// whose arguments name a file ("path") that a rule matches gets the rule's
// text after its result, once per conversation (again after a
// compaction), stored with the result so the prompt cache's prefix stays
// the same.
func (s *instructionSets) notes(dir string, next loop.AfterCallFunc) loop.AfterCallFunc {
	if len(s.of(dir).Rules) == 0 {
		return next
	}
	return func(ctx context.Context, c loop.AfterCall) tools.Result {
		res := c.Result
		if next != nil {
			res = next(ctx, c)
		}
		var args struct {
			Path string `json:"path"`
		}
		if json.Unmarshal([]byte(c.Call.Arguments), &args) != nil || args.Path == "" {
			return res
		}
		abs := args.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, abs)
		}
		var fresh []instructions.Rule
		s.mu.Lock()
		told := s.told[c.Session]
		if told == nil {
			told = map[string]bool{}
			s.told[c.Session] = told
		}
		for _, r := range s.sets[dir].Match(abs) {
			if !told[r.Path] {
				told[r.Path] = true
				fresh = append(fresh, r)
			}
		}
		s.mu.Unlock()
		res.Content += instructions.Note(fresh)
		return res
	}
}

// forget wraps a compaction's SummaryNote (nil: none): the rules told to
// the session are forgotten, so that the next call touching their files
// tells them again.
func (s *instructionSets) forget(next func(string) string) func(string) string {
	return func(session string) string {
		s.mu.Lock()
		delete(s.told, session)
		s.mu.Unlock()
		if next == nil {
			return ""
		}
		return next(session)
	}
}
