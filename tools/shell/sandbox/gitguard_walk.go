package sandbox

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agent-dev/agent/tools/protect"
)

// maxNestedDirs bounds the directories the guard keeps track of per
// writable root; a tree larger than that is looked at up to the bound and
// the note says so.
const maxNestedDirs = 200_000

// dirTrees is what the guard knows of the directories under each writable
// root, so that after a command it reads again only the directories whose
// entries changed. A command that creates a .git anywhere changes the
// change time (which no command can set back) of the directory it is
// created in, or creates that directory, whose parent then changed.
type dirTrees struct {
	mu    sync.Mutex
	trees map[string]*dirTree // by root
}

// dirTree is the directories under one root and the .git entries found in
// them, as of seen.
type dirTree struct {
	seen   time.Time // the change clock when the last look began
	dirs   map[string]bool
	gits   map[string]bool // .git entries (directories, files, links) other than the working directory's own
	confs  map[string]bool // .claude and .agent entries (protect.IsProjectConfigName)
	capped bool            // more than maxNestedDirs directories
}

// repairNested looks for every .git (directory, file or link) under the
// working directory and the configured writable roots, other than the
// working directory's own, that the command created or changed: a
// directory whose hooks or config changed is neutralised as a repository
// the command made; a .git file created or rewritten during the command
// must name a git directory inside a writable root (which is then
// neutralised the same way), or it is moved aside; a .git link is moved
// aside. It does not descend into git directories nor follow links.
//
// The first call lists every directory; later ones stat the directories
// they know and list only those whose change time is at or after the
// previous look began (and the new directories below them), then look at
// every .git they know: a look at a tree of tens of thousands of
// directories (a module cache among the writable roots) costs stats, not
// listings.
func (s *Sandbox) repairNested(since time.Time) (done, conf []string) {
	s.trees.mu.Lock()
	defer s.trees.mu.Unlock()
	if s.trees.trees == nil {
		s.trees.trees = map[string]*dirTree{}
	}
	for _, root := range append([]string{s.policy.Dir}, s.policy.WritableRoots...) {
		tr := s.trees.trees[root]
		start := changeClock()
		if tr == nil {
			tr = &dirTree{dirs: map[string]bool{}, gits: map[string]bool{}, confs: map[string]bool{}}
			s.trees.trees[root] = tr
			s.listTree(tr, root)
		} else {
			gone, changed := statDirs(slices.Collect(maps.Keys(tr.dirs)), tr.seen)
			for _, d := range gone {
				delete(tr.dirs, d)
			}
			for _, d := range changed {
				s.listDir(tr, d)
			}
		}
		tr.seen = start
		for _, g := range slices.Sorted(maps.Keys(tr.gits)) {
			if _, err := os.Lstat(g); err != nil {
				delete(tr.gits, g)
				continue
			}
			rel, _ := filepath.Rel(s.policy.Dir, g)
			done = append(done, s.repairNestedGit(g, rel, since)...)
			if _, err := os.Lstat(g); err != nil {
				delete(tr.gits, g) // moved aside
			}
		}
		if root == s.policy.Dir {
			conf = append(conf, s.repairProjectConfig(tr, since)...)
		}
		if tr.capped {
			done = append(done, fmt.Sprintf("(%s holds more than %d directories: only the first were looked at)", root, maxNestedDirs))
		}
	}
	return done, conf
}

// repairProjectConfig moves aside every .claude or .agent entry of the
// working tree that the command created or changed (its change time is
// at or after since) and that the sandbox did not keep read-only (one
// that did not exist when the session began): its hooks would run as the
// person at the next session started there, trusted by a --trust-project
// run or a remembered trust. It is renamed to NAME.blocked-by-agent, as a
// .git the command made is, so that nothing there runs until the person
// looks at it and puts it back.
func (s *Sandbox) repairProjectConfig(tr *dirTree, since time.Time) []string {
	var done []string
	protected := s.policy.allProtected()
	for _, c := range slices.Sorted(maps.Keys(tr.confs)) {
		fi, err := os.Lstat(c)
		if err != nil {
			delete(tr.confs, c)
			continue
		}
		if changeTime(fi).Before(since) || slices.Contains(protected, c) {
			continue
		}
		rel, _ := filepath.Rel(s.policy.Dir, c)
		done = append(done, moveAside(c, rel)...)
		if _, err := os.Lstat(c); err != nil {
			delete(tr.confs, c)
		}
	}
	return done
}

// listTree notes dir and lists it (and so every directory below it that tr
// does not know), up to maxNestedDirs directories.
func (s *Sandbox) listTree(tr *dirTree, dir string) {
	if len(tr.dirs) >= maxNestedDirs {
		tr.capped = true
		return
	}
	tr.dirs[dir] = true
	s.listDir(tr, dir)
}

// listDir reads dir: it notes the .git entries in it and lists the
// subdirectories tr does not know (not git directories, not links).
func (s *Sandbox) listDir(tr *dirTree, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	top := filepath.Join(s.policy.Dir, ".git")
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == ".git":
			if p != top {
				tr.gits[p] = true
			}
		case protect.IsProjectConfigName(e.Name()):
			tr.confs[p] = true
		case e.IsDir() && !tr.dirs[p] && p != s.policy.git.gitDir && p != s.policy.git.common:
			// The working directory's own git directory (a separate one,
			// --separate-git-dir) is looked after elsewhere, and holds no
			// work tree.
			s.listTree(tr, p)
		}
	}
}

// statDirs stats dirs, a few goroutines at a time, and returns those that
// are no longer directories and those whose change time is at or after
// since.
func statDirs(dirs []string, since time.Time) (gone, changed []string) {
	const workers = 4
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var g, c []string
			for i := w; i < len(dirs); i += workers {
				fi, err := os.Lstat(dirs[i])
				switch {
				case err != nil || !fi.IsDir():
					g = append(g, dirs[i])
				case !changeTime(fi).Before(since):
					c = append(c, dirs[i])
				}
			}
			mu.Lock()
			gone, changed = append(gone, g...), append(changed, c...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return gone, changed
}
