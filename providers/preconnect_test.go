package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// connCounter counts the connections a test server accepted and reports
// each state change on states.
type connCounter struct {
	accepted atomic.Int32
	states   chan http.ConnState
}

func newCounter() *connCounter { return &connCounter{states: make(chan http.ConnState, 16)} }

func (c *connCounter) hook(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.accepted.Add(1)
	}
	select {
	case c.states <- s:
	default:
	}
}

// waitFor waits for state s, failing after a long limit (a hang, not a
// timing assumption).
func (c *connCounter) waitFor(t *testing.T, s http.ConnState) {
	t.Helper()
	limit := time.After(30 * time.Second)
	for {
		select {
		case got := <-c.states:
			if got == s {
				return
			}
		case <-limit:
			t.Fatalf("the server never saw a connection reach %v", s)
		}
	}
}

// plainServer is an HTTP server whose connections cc counts.
func plainServer(t *testing.T) (*connCounter, *httptest.Server) {
	cc := newCounter()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = cc.hook
	srv.Start()
	t.Cleanup(srv.Close)
	return cc, srv
}

func get(t *testing.T, c *http.Client, url string) *http.Response {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// The first request over HTTPS takes the connection Preconnect opened, its
// handshake done, and speaks HTTP/2 on it: the server accepts one
// connection for both, and saw no request before the real one.
func TestPreconnectedTLSConnectionCarriesTheFirstRequest(t *testing.T) {
	cc := newCounter()
	var requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = cc.hook
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	p := NewPool(&tls.Config{RootCAs: roots})

	p.Preconnect(context.Background(), srv.URL+"/v1")
	cc.waitFor(t, http.StateNew)
	if requests.Load() != 0 {
		t.Fatal("preconnecting sent a request")
	}
	resp := get(t, p.Client(), srv.URL+"/v1/messages")
	if resp.ProtoMajor != 2 {
		t.Errorf("the request went over %s, want HTTP/2", resp.Proto)
	}
	if n := cc.accepted.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want the preconnected one only", n)
	}
	get(t, p.Client(), srv.URL+"/v1/messages") // the pool keeps it for the next
	if n := cc.accepted.Load(); n != 1 || requests.Load() != 2 {
		t.Errorf("%d connections for %d requests, want 1 for 2", n, requests.Load())
	}
}

// Over plain HTTP the preconnected TCP connection carries the request.
func TestPreconnectedConnectionCarriesThePlainRequest(t *testing.T) {
	cc, srv := plainServer(t)
	p := NewPool(nil)
	p.Preconnect(context.Background(), srv.URL)
	get(t, p.Client(), srv.URL+"/v1/chat/completions")
	if n := cc.accepted.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want 1", n)
	}
}

// A connection nobody took is closed when the run's context ends.
func TestAnUntakenConnectionClosesWithTheRun(t *testing.T) {
	cc, srv := plainServer(t)
	p := NewPool(nil)
	ctx, cancel := context.WithCancel(context.Background())
	p.Preconnect(ctx, srv.URL)
	cc.waitFor(t, http.StateNew)
	cancel()
	cc.waitFor(t, http.StateClosed)
}

// Nothing is opened for a URL a proxy serves, nor for one that is not
// http(s).
func TestNoPreconnectThroughAProxy(t *testing.T) {
	p := NewPool(nil)
	p.t.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.invalid:3128") }
	p.Preconnect(context.Background(), "https://api.example.invalid/v1")
	p.Preconnect(context.Background(), "unix:///tmp/socket")
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.warm) != 0 {
		t.Errorf("warm connections under way: %v", p.warm)
	}
}
