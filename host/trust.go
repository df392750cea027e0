package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// trustStore remembers, in the data directory, the person's answers about
// what a repository would run (a project's MCP server today; its hooks
// later): per kind, working directory and name, the answer and the whole
// definition it was given for. An answer holds only for the same
// definition: when the repository changes what would run, the person is
// asked again. Entries of the first format (a bare answer, no definition)
// count as changed.
type trustStore struct {
	path string
	mu   sync.Mutex
}

// trustEntry is one remembered answer.
type trustEntry struct {
	// Definition is the canonical text of what was trusted or refused.
	Definition string `json:"definition"`
	Allow      bool   `json:"allow"`
}

// trustAnswer is what the store knows of one definition.
type trustAnswer int

const (
	trustUnknown trustAnswer = iota // never asked
	trustChanged                    // asked about another definition of the same name
	trustAllowed
	trustRefused
)

func trustKey(kind, dir, name string) string { return kind + "\x00" + dir + "\x00" + name }

func (t *trustStore) load() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if data, err := os.ReadFile(t.path); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// get returns what the store knows of name (of kind, in dir) defined as
// def. A nil store knows nothing.
func (t *trustStore) get(kind, dir, name, def string) trustAnswer {
	if t == nil {
		return trustUnknown
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.load()
	raw, ok := m[trustKey(kind, dir, name)]
	if !ok {
		if _, legacy := m[dir+"\x00"+name]; legacy && kind == trustMCP {
			return trustChanged
		}
		return trustUnknown
	}
	var e trustEntry
	if json.Unmarshal(raw, &e) != nil || e.Definition != def {
		return trustChanged
	}
	if e.Allow {
		return trustAllowed
	}
	return trustRefused
}

// set remembers the answer for name (of kind, in dir) defined as def.
func (t *trustStore) set(kind, dir, name, def string, allow bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.load()
	delete(m, dir+"\x00"+name) // the first format's entry
	raw, _ := json.Marshal(trustEntry{Definition: def, Allow: allow})
	m[trustKey(kind, dir, name)] = raw
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, t.path)
}

// trustMCP is the kind of a project's MCP server.
const trustMCP = "mcp"
