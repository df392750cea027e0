package oauth

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"golang.org/x/oauth2"
)

// Store keeps each server's authorization in its own file under Dir
// (agent's data directory's mcp-oauth/): the client the authorization
// server knows agent as, its token endpoint, and the tokens. The directory
// is made 0700 and every file is written 0600, by rename, so a reader
// never sees half a file, and a write that fails leaves the file before it
// as it was.
type Store struct {
	Dir string
	// createTemp makes the file save writes before renaming it into
	// place; nil is os.CreateTemp. Tests make a write fail through it.
	createTemp func(dir, pattern string) (tempFile, error)
}

// tempFile is what save needs of the file it writes.
type tempFile interface {
	Name() string
	Chmod(mode fs.FileMode) error
	Write(p []byte) (int, error)
	Close() error
}

// record is one server's file.
type record struct {
	// URL is the server's; a record of another URL under the same name
	// is not used.
	URL          string        `json:"url"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"authorization_endpoint,omitempty"`
	TokenURL     string        `json:"token_endpoint"`
	AuthStyle    int           `json:"auth_style"`
	RedirectURL  string        `json:"redirect_uri,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// config is the oauth2 configuration that refreshes r's token.
func (r *record) config() *oauth2.Config {
	return &oauth2.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, RedirectURL: r.RedirectURL, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)}}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// path is the file of server: its name made safe, and a hash of the exact
// name so that two names that look alike once made safe stay apart.
func (s *Store) path(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(s.Dir, fmt.Sprintf("%s-%x.json", unsafeName.ReplaceAllString(server, "_"), sum[:4]))
}

// load returns server's record for url and its file's modification time,
// or nil when there is none (or it is for another URL). A file that does
// not parse is an error.
func (s *Store) load(server, url string) (*record, time.Time, error) {
	if s == nil {
		return nil, time.Time{}, nil
	}
	p := s.path(server)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading the stored authorization of %s: %w", server, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, time.Time{}, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, time.Time{}, fmt.Errorf("the stored authorization of %s (%s) does not parse; agent mcp logout %s removes it", server, p, server)
	}
	if r.URL != url || r.Token == nil {
		return nil, st.ModTime(), nil
	}
	return &r, st.ModTime(), nil
}

// modTime is the modification time of server's file (zero: none).
func (s *Store) modTime(server string) time.Time {
	if s == nil {
		return time.Time{}
	}
	st, err := os.Stat(s.path(server))
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// save writes server's record (mode 0600) and returns the file's new
// modification time.
func (s *Store) save(server string, r *record) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return time.Time{}, fmt.Errorf("storing the authorization of %s: %w", server, err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return time.Time{}, err
	}
	f, err := s.create()
	if err != nil {
		return time.Time{}, fmt.Errorf("storing the authorization of %s: %w", server, err)
	}
	defer os.Remove(f.Name())
	err = writeAndClose(f, data)
	if err == nil {
		err = os.Rename(f.Name(), s.path(server))
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("storing the authorization of %s: %w", server, err)
	}
	return s.modTime(server), nil
}

// create makes the temporary file a save writes, in Dir.
func (s *Store) create() (tempFile, error) {
	if s.createTemp != nil {
		return s.createTemp(s.Dir, ".tmp-*")
	}
	f, err := os.CreateTemp(s.Dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	return f, nil
}

// writeAndClose makes f 0600, writes data to it and closes it, whatever
// failed; the error is the first failure, nil when all went well.
func writeAndClose(f tempFile, data []byte) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove forgets server's authorization. It reports whether there was one.
func (s *Store) Remove(server string) (bool, error) {
	err := os.Remove(s.path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing the authorization of %s: %w", server, err)
	}
	return true, nil
}

// Stored reports whether server has a stored authorization for url.
func (s *Store) Stored(server, url string) bool {
	r, _, err := s.load(server, url)
	return err == nil && r != nil
}
