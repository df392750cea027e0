package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxMetaBytes bounds what WatchGit keeps of a git directory's config and
// hooks to put back; past it, what changed is moved aside without being
// put back.
const maxMetaBytes = 4 << 20

// WatchGit is the git guard for a tool that writes outside the sandbox
// (an MCP server's tool, which runs unconfined): it notes the working
// directory's git config and hooks (and those of the common directory a
// .git file leads to) before the call, and the function it returns, called
// once the call has ended, undoes what the call did there: a config that
// changed or appeared is moved to config.blocked-by-agent and the old one
// put back; a hook that changed or appeared is moved to
// hooks.blocked-by-agent/ and the old one put back. In workspace-write it
// then runs the command guard's repairs too (a .git file rewritten, a
// commondir that appeared, nested repositories; see Guard). The returned
// text says what was undone, "" when nothing was. Calls must not overlap.
func (s *Sandbox) WatchGit() func() string {
	dirs := s.gitMetaDirs()
	snaps := make([]metaSnap, len(dirs))
	for i, d := range dirs {
		snaps[i] = snapMeta(d)
	}
	var before gitState
	if s.policy.Mode == WorkspaceWrite {
		before = s.lookGit()
	}
	return func() string {
		var done []string
		for _, sn := range snaps {
			done = append(done, sn.restore()...)
		}
		if s.policy.Mode == WorkspaceWrite {
			if n := s.repairGit(before); n != "" {
				return strings.TrimSpace(note(done) + "\n" + n)
			}
		}
		return note(done)
	}
}

// gitMetaDirs are the git directories whose config and hooks WatchGit
// guards: Dir/.git, or the git and common directories a .git file names.
func (s *Sandbox) gitMetaDirs() []string {
	g := readGitLayout(s.policy.Dir)
	var out []string
	for _, d := range []string{g.gitDir, g.common} {
		if d != "" && !slices.Contains(out, d) && kindOf(d) == entryDir {
			out = append(out, d)
		}
	}
	return out
}

// metaSnap is a git directory's config and hooks as they were.
type metaSnap struct {
	dir    string
	config []byte // nil: none
	hooks  map[string]hookSnap
	whole  bool // every byte kept (within maxMetaBytes)
}

type hookSnap struct {
	content []byte
	mode    os.FileMode
}

func snapMeta(dir string) metaSnap {
	sn := metaSnap{dir: dir, hooks: map[string]hookSnap{}, whole: true}
	size := 0
	if b, err := os.ReadFile(filepath.Join(dir, "config")); err == nil {
		sn.config, size = b, len(b)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "hooks"))
	for _, e := range ents {
		p := filepath.Join(dir, "hooks", e.Name())
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			sn.hooks[e.Name()] = hookSnap{mode: fi.Mode()}
			continue
		}
		b, err := os.ReadFile(p)
		if size += len(b); err != nil || size > maxMetaBytes {
			sn.whole = false
			continue
		}
		sn.hooks[e.Name()] = hookSnap{content: b, mode: fi.Mode()}
	}
	return sn
}

// restore undoes changes to the config and hooks since the snapshot.
func (sn metaSnap) restore() []string {
	var done []string
	name := filepath.Base(sn.dir)
	cfg := filepath.Join(sn.dir, "config")
	now, err := os.ReadFile(cfg)
	switch {
	case err == nil && sn.config == nil, err == nil && !bytes.Equal(now, sn.config), isLink(cfg):
		blocked := cfg + ".blocked-by-agent"
		os.RemoveAll(blocked)
		if os.Rename(cfg, blocked) == nil {
			if sn.config != nil {
				os.WriteFile(cfg, sn.config, 0o644)
			}
			done = append(done, name+"/config, changed by the tool, moved to "+name+"/config.blocked-by-agent and the old one put back")
		}
	}
	hooks := filepath.Join(sn.dir, "hooks")
	ents, _ := os.ReadDir(hooks)
	for _, e := range ents {
		p := filepath.Join(hooks, e.Name())
		old, had := sn.hooks[e.Name()]
		if had && sn.whole && old.content != nil {
			if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, old.content) && !isLink(p) {
				continue
			}
		} else if had {
			continue // not kept: cannot tell
		}
		blocked := filepath.Join(sn.dir, "hooks.blocked-by-agent")
		if os.MkdirAll(blocked, 0o755) != nil || os.Rename(p, filepath.Join(blocked, e.Name())) != nil {
			continue
		}
		if had && old.content != nil {
			os.WriteFile(p, old.content, old.mode.Perm())
		}
		done = append(done, name+"/hooks/"+e.Name()+", changed by the tool, moved to "+name+"/hooks.blocked-by-agent/")
	}
	return done
}
