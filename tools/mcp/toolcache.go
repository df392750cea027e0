package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// knownList is a server's last tool list, as kept in Options.CacheDir:
// the server's tools as it listed them and whether it declared resources
// (mcp_resource is offered for it). A server still starting is offered by
// it, so that a request's tools are the same whether the server is
// ready or not.
type knownList struct {
	// Server is the name the definition had when the list was kept
	// (for a person reading the file; the key is the definition).
	Server    string      `json:"server"`
	Tools     []*sdk.Tool `json:"tools"`
	Resources bool        `json:"resources,omitempty"`
}

// definitionKey names a server's definition in the cache: a hash of its
// command, arguments, env names, URL and transport (not its env values or
// headers, which may be secrets and do not change what it offers).
func definitionKey(c Config) string {
	data, _ := json.Marshal(struct {
		Command  string   `json:"command,omitempty"`
		Args     []string `json:"args,omitempty"`
		EnvNames []string `json:"env,omitempty"`
		URL      string   `json:"url,omitempty"`
		SSE      bool     `json:"sse,omitempty"`
	}{c.Command, c.Args, c.EnvNames, c.URL, c.SSE})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// cachePath is where the list of the definition of c is kept; "" when
// lists are not kept.
func (m *Manager) cachePath(c Config) string {
	if m.opts.CacheDir == "" || (c.Command == "" && c.URL == "") {
		return ""
	}
	return filepath.Join(m.opts.CacheDir, definitionKey(c)+".json")
}

// loadKnown reads the list kept for c; nil when there is none (or it
// cannot be read: the next listing writes it anew).
func (m *Manager) loadKnown(c Config) *knownList {
	path := m.cachePath(c)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var k knownList
	if json.Unmarshal(data, &k) != nil || k.Tools == nil {
		return nil
	}
	return &k
}

// saveKnown keeps k for c, replacing the file whole (a reader never sees
// half of it); a failure only costs the next start its list.
func (m *Manager) saveKnown(c Config, k knownList) {
	path := m.cachePath(c)
	if path == "" {
		return
	}
	data, err := json.Marshal(k)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tools-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// sameList reports whether two tool lists are the same, as JSON.
func sameList(a, b []*sdk.Tool) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
