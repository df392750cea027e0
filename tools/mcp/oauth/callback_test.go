package oauth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCallbackChecksState: the loopback callback refuses a redirect with
// another state (the flow goes on waiting) and takes the one with the
// flow's state; an error from the authorization server ends the flow.
func TestCallbackChecksState(t *testing.T) {
	cb, err := newCallback("https://as.example/authorize?state=s-1&client_id=c", "remote")
	if err != nil {
		t.Fatal(err)
	}
	get := func(target string) int {
		rec := httptest.NewRecorder()
		cb.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec.Code
	}
	if code := get("/callback?state=forged&code=evil"); code != http.StatusBadRequest {
		t.Errorf("a forged state answered %d, want 400", code)
	}
	if code := get("/elsewhere?state=s-1&code=c"); code != http.StatusNotFound {
		t.Errorf("another path answered %d, want 404", code)
	}
	select {
	case r := <-cb.result:
		t.Fatalf("a refused redirect ended the flow: %+v", r)
	default:
	}
	if code := get("/callback?state=s-1&code=the-code&iss=https://as.example"); code != http.StatusOK {
		t.Fatalf("the right redirect answered %d", code)
	}
	r := <-cb.result
	if r.err != nil || r.res.Code != "the-code" || r.res.Iss != "https://as.example" {
		t.Errorf("result %+v", r)
	}

	denied, _ := newCallback("https://as.example/authorize?state=s-2", "remote")
	rec := httptest.NewRecorder()
	denied.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?state=s-2&error=access_denied", nil))
	if r := <-denied.result; r.err == nil {
		t.Error("access_denied did not end the flow with an error")
	}
}

// TestOpenBrowserWithoutACommand: a BROWSER of no command falls back to
// the platform's opener rather than failing on it (here: an error, or a
// started opener, never a panic).
func TestOpenBrowserWithoutACommand(t *testing.T) {
	getenv := func(string) string { return " : " }
	_ = OpenBrowser("http://127.0.0.1:1/", getenv, []string{"PATH="})
}
