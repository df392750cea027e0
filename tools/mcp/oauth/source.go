package oauth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// RefreshMargin is how long before its expiry a token is refreshed.
const RefreshMargin = time.Minute

// refreshTimeout bounds one refresh request.
const refreshTimeout = 30 * time.Second

// source is the token source of an authorization-code server: the stored
// record's token, refreshed RefreshMargin before it expires (and stored
// again), and read again when another process (agent mcp login) rewrote
// the file. With no usable token it returns none, so the request goes out
// without one and the server's 401 starts a new authorization.
type source struct {
	store  *Store
	server string
	url    string
	client *http.Client
	notify func(format string, args ...any)

	mu       sync.Mutex
	rec      *record
	mod      time.Time // the file's modification time when rec was read or written
	reported string    // the refresh token whose failed refresh was reported
}

var _ oauth2.TokenSource = (*source)(nil)

// Token returns the current access token, or nil (and no error) when there
// is none to send.
func (s *source) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reload()
	if s.rec == nil || s.rec.Token == nil {
		return nil, nil
	}
	t := s.rec.Token
	if t.AccessToken != "" && (t.Expiry.IsZero() || time.Until(t.Expiry) > RefreshMargin) {
		return t, nil
	}
	if t.RefreshToken != "" {
		nt, err := s.refresh(t.RefreshToken)
		if err == nil {
			return nt, nil
		}
		if s.reported != t.RefreshToken { // once, not at every request
			s.reported = t.RefreshToken
			s.notify("MCP server %s: refreshing its token failed (%s); it asks for authorization again", s.server, describe(err))
		}
	}
	if t.AccessToken != "" && time.Now().Before(t.Expiry) {
		return t, nil
	}
	return nil, nil
}

// refresh trades the refresh token for new tokens and stores them.
func (s *source) refresh(refreshToken string) (*oauth2.Token, error) {
	// The resource is the server's URL, as in the authorization (the SDK
	// takes the protected resource metadata's, which must equal it).
	client := withResource(s.client, s.rec.TokenURL, s.rec.URL)
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, client), refreshTimeout)
	defer cancel()
	nt, err := s.rec.config().TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = refreshToken // the server kept it
	}
	s.rec.Token = nt
	if mod, err := s.store.save(s.server, s.rec); err == nil {
		s.mod = mod
	} else {
		s.notify("MCP server %s: %v", s.server, err)
	}
	return nt, nil
}

// reload reads the stored record when the file changed since it was last
// read or written (or is gone: agent mcp logout), or always with force.
func (s *source) reload(force ...bool) {
	if s.store == nil {
		return
	}
	mod := s.store.modTime(s.server)
	if mod.Equal(s.mod) && len(force) == 0 {
		return
	}
	rec, mod, err := s.store.load(s.server, s.url)
	if err != nil {
		s.notify("%v", err)
		return
	}
	s.rec, s.mod = rec, mod
}

// set replaces the record with a new authorization and stores it.
func (s *source) set(rec *record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec = rec
	mod, err := s.store.save(s.server, rec)
	if err != nil {
		return err
	}
	s.mod = mod
	return nil
}

// current is the token to send after reading the file again (another
// process may have written it within the file system's time resolution).
func (s *source) current() *oauth2.Token {
	s.mu.Lock()
	s.reload(true)
	s.mu.Unlock()
	tok, _ := s.Token()
	return tok
}

// describe is err for a person, without what a token endpoint's answer may
// carry beyond its error code.
func describe(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "the authorization server answered " + re.ErrorCode
		}
		if re.Response != nil {
			return "the authorization server answered " + re.Response.Status
		}
	}
	return err.Error()
}
