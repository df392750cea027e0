// Package checkpoint keeps restore points of a working directory: the
// state of the files git would see there (tracked, and untracked but not
// ignored), whoever changed them, in a shadow object store of the project
// in the agent's data directory, in git's own format: the git binary says
// which files git sees, and the index, objects and trees are written in
// process where they can be (gitfmt; inprocess.go), else by git. The user's repository is never written: not its objects, index,
// refs, stash or config. The store is shared by every session of the
// project, so a file's content is stored once however many checkpoints
// hold it.
//
// A checkpoint is a git tree. Each session keeps its own index in the
// store, so taking a checkpoint rehashes only the files whose size or time
// changed since the session's last one, and a ref per checkpoint
// (refs/agent/SESSION/NAME) keeps its tree until the session is forgotten.
// Files larger than Options.MaxFileBytes are left out and the checkpoint
// names them.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-dev/agent/gitcmd"
	"github.com/agent-dev/agent/worktree"
)

// ErrNoGit is returned by Open when no git binary can be run: checkpoints
// are then off.
var ErrNoGit = errors.New("git is not installed: checkpoints are off")

// Options are the limits of a store.
type Options struct {
	// MaxFileBytes is the largest file a checkpoint holds, in bytes;
	// larger ones are left out and named in Snapshot.Skipped. Zero means
	// DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxFiles is the most files one checkpoint reads and stores; a
	// working directory with more new files (a home directory, a tree
	// outside any repository with its dependencies) fails with
	// ErrTooManyFiles. Zero means DefaultMaxFiles.
	MaxFiles int
	// Exclude, when not nil, names the paths (slash-separated, relative
	// to the working directory) a checkpoint never holds, whatever git
	// says of them: credentials in a working directory that is a home
	// directory.
	Exclude func(rel string) bool
	// Watch has the store watch the working directory's changes through
	// the file system's notifications once a session's index holds the
	// project's files (its first checkpoint when the index started from
	// another session's, else its second), so each later checkpoint reads
	// only the paths that changed; Close
	// stops it. Without it every checkpoint compares every file's size and
	// time (tens of milliseconds in a 10,000-file tree).
	Watch bool
}

// DefaultMaxFiles is the most files a checkpoint reads at once: 200,000.
const DefaultMaxFiles = 200_000

// ErrTooManyFiles is Take's refusal of a working directory with more new
// files than Options.MaxFiles.
var ErrTooManyFiles = errors.New("too many files for a checkpoint")

// DefaultMaxFileBytes is the size cap of a file in a checkpoint: 10 MiB.
const DefaultMaxFileBytes = 10 << 20

// Store is the shadow object store of one working directory's project.
// It is safe for concurrent use; the checkpoints of one session are taken
// one at a time.
type Store struct {
	gitDir  string // the shadow repository: objects, refs, one index per session
	top     string // the work tree: the repository's top level, or Dir when there is none
	dir     string // the working directory the checkpoints cover
	prefix  string // dir relative to top, slash-separated; "" when they are the same
	userGit string // the user's git directory (read only: info/exclude), "" for none
	maxFile int64
	maxN    int
	exclude func(rel string) bool
	// sizeOnce counts the files of a working directory outside any
	// repository once; sizeErr is its refusal.
	sizeOnce sync.Once
	sizeErr  error
	// warm is closed once the warm-up Warm started has ended (nil: none).
	warm chan struct{}
	// watch is the working directory's watch, started by the second
	// checkpoint of a session when Options.Watch (nil: none yet, or none
	// possible: watchFailed).
	watching    bool
	watch       *watcher
	watchFailed bool
	// excludeSeen is the user's info/exclude as this store last read it
	// (excludeRead: it did).
	excludeSeen []byte
	excludeRead bool
	// refsAsFiles is whether the store keeps its refs as files, read once
	// (refsOnce).
	refsOnce    sync.Once
	refsAsFiles bool
	// inProc is whether the store's index and objects are written in
	// process (inProcess), found once (formatOnce).
	formatOnce sync.Once
	inProc     bool

	mu       sync.Mutex
	latest   string // the session this process last named in indexes/.latest
	sessions map[string]*sessionState
	kept     map[string]bool // trees already under a ref of this process
	trees    []remembered    // the entries of the trees written last (remember)
	pre      *prelisted      // what the watch's start listed for a new session's index (prewatch)
}

// sessionState is what a store remembers of a session between its
// checkpoints.
type sessionState struct {
	mu   sync.Mutex
	tree string // the last checkpoint's tree; "" before the first
}

// Open opens, making it when missing, the store of the project of dir
// (absolute) in root, the directory of a session database's stores. The
// project is the git repository
// dir lies in (its top level is the work tree, so the repository's
// .gitignore files all apply), or dir itself outside a repository. It
// fails with ErrNoGit when git cannot run, and with an error naming the
// path when the store cannot be made.
func Open(ctx context.Context, root, dir string, opt Options) (*Store, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	dir = filepath.Clean(dir)
	top, userGit := findTop(dir)
	prefix, err := filepath.Rel(top, dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", dir, err)
	}
	if prefix == "." {
		prefix = ""
	}
	s := &Store{
		gitDir: filepath.Join(root, worktree.Key(top)), top: top, dir: dir,
		prefix: filepath.ToSlash(prefix), userGit: userGit, maxFile: opt.MaxFileBytes,
		sessions: map[string]*sessionState{}, kept: map[string]bool{}, watching: opt.Watch, exclude: opt.Exclude,
	}
	if s.maxFile <= 0 {
		s.maxFile = DefaultMaxFileBytes
	}
	if s.maxN = opt.MaxFiles; s.maxN <= 0 {
		s.maxN = DefaultMaxFiles
	}
	if err := s.init(ctx); err != nil {
		return nil, fmt.Errorf("opening the checkpoint store %s: %w", s.gitDir, err)
	}
	return s, nil
}

// Close stops the store's watch of the working directory.
func (s *Store) Close() {
	s.mu.Lock()
	w := s.watch
	s.watch, s.watchFailed = nil, true
	s.mu.Unlock()
	if w != nil {
		w.close()
	}
}

// Dir is the working directory the store's checkpoints cover.
func (s *Store) Dir() string { return s.dir }

// attributes make git store every file's bytes as they are: no line-ending
// conversion, no filter driver (git-lfs), no ident or encoding rewrite,
// whatever the project's .gitattributes say ($GIT_DIR/info/attributes
// takes precedence over them).
const attributes = "* -text -eol -filter -ident -working-tree-encoding\n"

// config is the store's own configuration, which takes precedence over
// the user's: no line-ending conversion, no file system monitor (a
// program the user's config could name), no automatic gc (Forget prunes).
var config = [][2]string{
	{"core.bare", "false"},
	{"core.autocrlf", "false"},
	{"core.safecrlf", "false"},
	{"core.fsmonitor", "false"},
	{"core.untrackedCache", "false"},
	{"core.quotePath", "false"},
	{"core.symlinks", "true"},
	{"core.fileMode", "true"},
	{"gc.auto", "0"},
}

// init makes the store when it is missing.
func (s *Store) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.gitDir, "info", "attributes")); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.gitDir, 0o700); err != nil {
		return err
	}
	unlock := gitcmd.LockFile(filepath.Join(s.gitDir, "lock"))
	defer unlock()
	if _, err := (gitcmd.Cmd{Dir: s.gitDir}).Run(ctx, "init", "--quiet", "--bare", "."); err != nil {
		return err
	}
	for _, kv := range config {
		if _, err := (gitcmd.Cmd{Dir: s.gitDir}).Run(ctx, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(s.gitDir, "indexes"), 0o700); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s.gitDir, "info"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.gitDir, "info", "attributes"), []byte(attributes), 0o600)
}

// git is a git command on the store with the work tree and session's
// index (index "" for none).
func (s *Store) git(index string) gitcmd.Cmd {
	env := []string{"GIT_DIR=" + s.gitDir, "GIT_WORK_TREE=" + s.top, "GIT_CONFIG_NOSYSTEM=1"}
	if index != "" {
		env = append(env, "GIT_INDEX_FILE="+index)
	}
	return gitcmd.Cmd{Dir: s.top, Env: env}
}

// indexOf is the path of session's index in the store.
func (s *Store) indexOf(session string) string {
	return filepath.Join(s.gitDir, "indexes", session)
}

// state is session's state, made on first use.
func (s *Store) state(session string) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[session]
	if st == nil {
		st = &sessionState{}
		s.sessions[session] = st
	}
	return st
}

// findTop returns the top level of the git work tree dir lies in (the
// nearest directory with a .git entry) and its git directory, or dir and
// "" when there is none. It reads the file system only.
func findTop(dir string) (top, gitDir string) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			if fi.IsDir() {
				return d, dotGit
			}
			if b, err := os.ReadFile(dotGit); err == nil {
				if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					g = strings.TrimSpace(g)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
						common := strings.TrimSpace(string(c))
						if !filepath.IsAbs(common) {
							common = filepath.Join(g, common)
						}
						return d, filepath.Clean(common)
					}
					return d, g
				}
			}
			return d, ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, ""
		}
		d = parent
	}
}
