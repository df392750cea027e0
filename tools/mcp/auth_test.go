package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/internal/oauthtest"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// TestAuthorizationExtendsTheStart: a login that takes longer than the
// server's startup_timeout (a person in the browser) does not fail the
// start, while a server that does not answer at all still fails after
// startup_timeout.
func TestAuthorizationExtendsTheStart(t *testing.T) {
	srv := oauthtest.Start(oauthtest.Options{})
	t.Cleanup(srv.Close)
	done := make(chan struct{})
	mute := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers, until the test ends
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(mute.Close)
	t.Cleanup(func() { close(done) })
	// The same startup timeout for both; the person allows only once the
	// mute server, started after the remote one's authorization began, has
	// failed for it: by then the remote start's own startup timeout has
	// passed too.
	const startup = 3 * time.Second
	muted := make(chan Status, 1)
	slowPerson := func(u string) error {
		go func() {
			mm := NewManager([]Config{{Name: "mute", URL: mute.URL, StartupTimeout: startup}}, Options{Version: "test"})
			mm.Start(context.Background())
			mm.Wait(context.Background())
			muted <- mm.Status()[0]
			mm.Close()
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	h, err := oauth.New(oauth.Config{}, oauth.Options{Server: "remote", URL: srv.URL(), Browser: slowPerson})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager([]Config{{Name: "remote", URL: srv.URL(), Auth: h, AuthTimeout: time.Minute, StartupTimeout: startup}}, Options{Version: "test"})
	m.Start(context.Background())
	m.Wait(context.Background())
	defer m.Close()
	got := map[string]Status{"mute": <-muted}
	for _, s := range m.Status() {
		got[s.Name] = s
	}
	if s := got["remote"]; s.State != StateRunning || len(s.Tools) != 1 {
		t.Errorf("remote: %+v, want running after the slow login", s)
	}
	if s := got["mute"]; s.State != StateFailed || !strings.Contains(s.Error, "did not start within 3s") {
		t.Errorf("mute: %+v, want failed after its startup timeout", s)
	}
}
