// Package memory keeps what the agent should remember across sessions of a
// project and searches it: a long-term file, MEMORY.md, one note file a day,
// YYYY-MM-DD.md, and every past session of the project as the session store
// keeps it (full-text search with SQLite FTS5, ranked by BM25; see
// sessions.Store.Search), and, when the provider serves an embeddings
// endpoint, by meaning too (Embedder, StartEmbedding; the two rankings of
// sessions fused by reciprocal rank). What search and Get show has
// credential-looking values masked (shell.MaskSecrets).
//
// The files live in the agent's data directory, never in the repository:
// DATA/memory/KEY/, where KEY names the project by its root (the nearest
// directory upwards holding .git, else the working directory itself):
// the root's base name and a hash of its path. AGENTS.md stays the team's
// shared instructions; memory is the user's own.
//
// MEMORY.md goes into the system prompt of each new session (Prompt, at
// most MaxPromptBytes); daily notes are reached only through search. The
// model reads memory with the memory_search and memory_get tools and keeps
// notes with memory_write (Tools); the person adds to MEMORY.md with a
// prompt that starts with "#" (turn.MemoryNote recognises it, Remember
// keeps it).
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/worktree"
)

// LongTermFile is the name of the long-term memory file.
const LongTermFile = "MEMORY.md"

// MaxPromptBytes caps how much of MEMORY.md goes into the system prompt
// (4 KiB); a longer file is cut at a line's end with a note.
const MaxPromptBytes = 4 << 10

// dayLayout is the time layout of a daily note's name without ".md".
const dayLayout = "2006-01-02"

// projectFile, in a memory directory, holds the project root it belongs
// to, so that a search of all projects can name them.
const projectFile = "project"

// Memory is one project's memory. Its methods are safe for concurrent use.
type Memory struct {
	store *sessions.Store // nil: the files only
	base  string          // DATA/memory: every project's directory
	dir   string          // base/KEY: this project's
	root  string          // the project's root
	// worktrees is where the project's worktrees live (outside root),
	// whose sessions are the project's too.
	worktrees string
	now       func() time.Time
	mu        sync.Mutex // serialises writes to the files
	// embed, when not nil, embeds passages and queries (UseEmbeddings);
	// indexer is the background indexer (StartEmbedding).
	embed   *Embedder
	indexer atomic.Pointer[indexer]
	// queryTimeout bounds the embedding of a query (QueryTimeout).
	queryTimeout time.Duration
	// files are the vectors of the memory files' chunks.
	files fileVectors
}

// New returns the memory of the project that holds workDir (an absolute
// path), kept under dataDir/memory (dataDir is the agent's data directory,
// where the session database lives). store, when not nil, is searched for
// the project's past sessions. Nothing is created until a note is written.
func New(store *sessions.Store, dataDir, workDir string) *Memory {
	root := ProjectRoot(workDir)
	base := filepath.Join(dataDir, "memory")
	worktrees := worktree.RepoDir(dataDir, root)
	if real, err := filepath.EvalSymlinks(worktrees); err == nil {
		worktrees = real // as the worktrees' sessions name their directories
	}
	return &Memory{store: store, base: base, dir: filepath.Join(base, Key(root)), root: root, now: time.Now,
		queryTimeout: QueryTimeout, worktrees: worktrees}
}

// ProjectRoot returns the root of the project that holds dir: the nearest
// directory from dir upwards that holds a .git entry (a directory, or a
// submodule's file), else dir itself, cleaned. A linked worktree's
// project is its main repository's (worktree.MainRoot): a session in a
// worktree agent made has the memory of the repository it came from.
func ProjectRoot(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if main, ok := worktree.MainRoot(d); ok {
				return main
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Key names a project's memory directory: the root's base name (letters,
// digits, '.', '-' and '_' kept, anything else '_') and the first 12 hex
// digits of the SHA-256 of the root's path, "agent-3f2a9c0d1e4b", as
// worktree.Key names a repository's worktrees.
func Key(root string) string { return worktree.Key(root) }

// Dir returns this project's memory directory (it may not exist yet).
func (m *Memory) Dir() string { return m.dir }

// Root returns the project's root.
func (m *Memory) Root() string { return m.root }

// LongTermPath returns the path of this project's MEMORY.md.
func (m *Memory) LongTermPath() string { return filepath.Join(m.dir, LongTermFile) }

// Remember appends text to MEMORY.md when longTerm, else to today's note
// file, as one markdown list item (later lines indented under it; a daily
// note's item starts with the time, "15:04"). It creates the directory
// (0700) and the file (0600) when missing and returns the file's path. An
// empty text is an error.
func (m *Memory) Remember(text string, longTerm bool) (string, error) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if text == "" {
		return "", errors.New("nothing to remember: the note is empty")
	}
	now := m.now()
	path := m.LongTermPath()
	if !longTerm {
		path = filepath.Join(m.dir, now.Format(dayLayout)+".md")
		text = now.Format("15:04") + " " + text
	}
	item := "- " + strings.ReplaceAll(text, "\n", "\n  ") + "\n"
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.ensureDir(); err != nil {
		return "", err
	}
	// A file that does not end with a newline gets one first, so the item
	// starts its own line.
	if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
		item = "\n" + item
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("saving to memory: %w", err)
	}
	if _, err := f.WriteString(item); err != nil {
		f.Close()
		return "", fmt.Errorf("saving to memory: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("saving to memory: %w", err)
	}
	return path, nil
}

// EnsureLongTerm creates MEMORY.md, empty, when it does not exist (for
// opening it in an editor) and returns its path.
func (m *Memory) EnsureLongTerm() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.ensureDir(); err != nil {
		return "", err
	}
	path := m.LongTermPath()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("creating %s: %w", path, err)
	}
	return path, f.Close()
}

// ensureDir creates the project's memory directory and records the root
// it belongs to.
func (m *Memory) ensureDir() error {
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return fmt.Errorf("creating the memory directory: %w", err)
	}
	p := filepath.Join(m.dir, projectFile)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(p, []byte(m.root+"\n"), 0o600); err != nil {
			return fmt.Errorf("creating the memory directory: %w", err)
		}
	}
	return nil
}

// Prompt returns the system prompt's section for MEMORY.md: its text,
// trimmed and cut to MaxPromptBytes at a line's end with a note saying so,
// inside <memory> tags. It returns "" when the file is missing, empty or
// only white space, so that no memory adds nothing to a request, nor when
// it cannot be read.
func (m *Memory) Prompt() string {
	data, err := readRegular(m.LongTermPath(), MaxPromptBytes+1)
	text := strings.TrimSpace(string(data))
	if err != nil || text == "" {
		return ""
	}
	if len(text) > MaxPromptBytes {
		cut := text[:MaxPromptBytes]
		if i := strings.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i]
		}
		text = strings.TrimSpace(cut) + "\n(MEMORY.md is longer and was cut here; memory_get with key MEMORY.md reads all of it.)"
	}
	return "\nThe user's memory for this project (MEMORY.md, kept across sessions; memory_search finds more, in daily notes and past sessions):\n<memory>\n" +
		text + "\n</memory>\n"
}

// readRegular reads at most limit bytes of the regular file at path
// (limit <= 0: all of it). A FIFO or device is an error, so that a read
// never blocks.
func readRegular(path string, limit int64) ([]byte, error) {
	// Checked before opening: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if limit > 0 && size > limit {
		size = limit
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if n == len(buf) {
		err = nil
	}
	return buf[:n], err
}
