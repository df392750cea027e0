package oauth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// halfWriter is a temporary file whose Write stores half of what it is
// given and fails, as a full disk does.
type halfWriter struct{ *os.File }

func (h halfWriter) Write(p []byte) (int, error) {
	n, _ := h.File.Write(p[:len(p)/2])
	return n, errors.New("no space left on device")
}

// A write that fails leaves the stored authorization as it was: the half
// written file is never renamed over it, and no temporary file is left.
func TestAFailedSaveKeepsTheOldFile(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	old := &record{URL: "https://mcp.example/", ClientID: "c", TokenURL: "https://auth.example/token",
		Token: &oauth2.Token{AccessToken: "old-token", RefreshToken: "old-refresh"}}
	if _, err := s.save("docs", old); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.path("docs"))
	if err != nil {
		t.Fatal(err)
	}
	s.createTemp = func(dir, pattern string) (tempFile, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return halfWriter{f}, nil
	}
	newer := *old
	newer.Token = &oauth2.Token{AccessToken: "new-token", RefreshToken: "new-refresh"}
	if _, err := s.save("docs", &newer); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("save = %v, want the write's failure", err)
	}
	after, err := os.ReadFile(s.path("docs"))
	if err != nil || string(after) != string(before) {
		t.Errorf("the stored file changed:\n%s\nwant\n%s (%v)", after, before, err)
	}
	if r, _, err := s.load("docs", old.URL); err != nil || r == nil || r.Token.AccessToken != "old-token" {
		t.Errorf("load = %+v, %v; want the old token", r, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(s.Dir, ".tmp-*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
