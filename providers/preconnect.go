package providers

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// WarmLife is how long a connection Preconnect opened waits for the
// request that takes it; past that it is closed and the request dials
// anew (a server may drop a connection that sent nothing for long).
const WarmLife = 20 * time.Second

// Pool is an HTTP transport for the adapters (Config.HTTPClient) that can
// open its first connection to the model's server before the first request
// needs it, as browsers' and Claude Code's preconnect do: the TCP connect
// and, for https, the TLS handshake (one to three round trips to the
// server) then overlap with the agent's start instead of delaying the
// first answer. Its configuration is http.DefaultTransport's (proxies from
// the environment, HTTP/2, its timeouts and idle pool). It is safe for
// concurrent use; one Pool serves a session and its subagents, so their
// requests share its connections.
type Pool struct {
	t      *http.Transport
	dialer net.Dialer
	tls    *tls.Config // the handshakes' configuration, without ServerName

	mu   sync.Mutex
	warm map[string]*warmConn // by scheme and address: "https api.anthropic.com:443"
}

// warmConn is a connection being opened or open, not yet taken.
type warmConn struct {
	ready chan struct{} // closed once conn or err is set
	conn  net.Conn
	err   error
	timer *time.Timer // closes the connection at WarmLife
}

// NewPool returns a pool over a copy of http.DefaultTransport's
// configuration; tlsConfig, when not nil, is its TLS configuration (tests
// trust their server's certificate with it).
func NewPool(tlsConfig *tls.Config) *Pool {
	p := &Pool{warm: map[string]*warmConn{}}
	if tlsConfig == nil {
		tlsConfig = &tls.Config{}
	}
	p.tls = tlsConfig.Clone()
	if len(p.tls.NextProtos) == 0 {
		p.tls.NextProtos = []string{"h2", "http/1.1"}
	}
	p.dialer = net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second} // DefaultTransport's
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = p.tls.Clone()
	t.DialContext = p.dial
	t.DialTLSContext = p.dialTLS
	t.ForceAttemptHTTP2 = true // HTTP/2 over the connections dialTLS returns, as over the transport's own
	p.t = t
	return p
}

// Client returns an http.Client whose requests go through the pool.
func (p *Pool) Client() *http.Client { return &http.Client{Transport: p.t} }

// Preconnect starts opening a connection to the server of rawURL (an http
// or https URL) in the background and returns at once; the pool's next
// request to that server takes it instead of dialing. Nothing is sent
// but the TLS handshake: the server sees no request. A URL reached
// through a proxy (HTTPS_PROXY, ...) is not preconnected, nor a server
// that already has one opening. Failures are dropped: the request then
// dials as it would have. The connection is closed when ctx ends (the
// run's) or at WarmLife if nothing took it.
func (p *Pool) Preconnect(ctx context.Context, rawURL string) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	if proxy, err := p.t.Proxy(&http.Request{URL: u}); err != nil || proxy != nil {
		return
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	key := u.Scheme + " " + addr
	w := &warmConn{ready: make(chan struct{})}
	p.mu.Lock()
	if p.warm[key] != nil {
		p.mu.Unlock()
		return
	}
	p.warm[key] = w
	p.mu.Unlock()
	go func() {
		var conn net.Conn
		var err error
		if u.Scheme == "https" {
			conn, err = p.handshake(ctx, addr)
		} else {
			conn, err = p.dialer.DialContext(ctx, "tcp", addr)
		}
		w.conn, w.err = conn, err
		if err == nil {
			w.timer = time.AfterFunc(WarmLife, func() { p.drop(key, w) })
			context.AfterFunc(ctx, func() { p.drop(key, w) })
		}
		close(w.ready)
		if err != nil {
			p.drop(key, w) // the request dials itself
		}
	}()
}

// take removes and returns the warm connection of key, nil when none.
func (p *Pool) take(key string) *warmConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.warm[key]
	delete(p.warm, key)
	return w
}

// drop forgets w, and closes its connection, unless a request took it.
func (p *Pool) drop(key string, w *warmConn) {
	p.mu.Lock()
	mine := p.warm[key] == w
	if mine {
		delete(p.warm, key)
	}
	p.mu.Unlock()
	if mine && w.conn != nil {
		w.conn.Close()
	}
}

// use waits for w (a preconnect under way) and returns its connection, or
// nil when it failed or ctx ended first (the caller dials).
func use(ctx context.Context, w *warmConn) net.Conn {
	select {
	case <-w.ready:
	case <-ctx.Done():
		go func() { // nobody will take it now
			<-w.ready
			if w.conn != nil {
				w.conn.Close()
			}
		}()
		return nil
	}
	if w.err != nil {
		return nil
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.conn
}

// dial is the transport's DialContext: plain http connections, and a
// proxy's.
func (p *Pool) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if w := p.take("http " + addr); w != nil && network == "tcp" {
		if c := use(ctx, w); c != nil {
			return c, nil
		}
	}
	return p.dialer.DialContext(ctx, network, addr)
}

// dialTLS is the transport's DialTLSContext (https without a proxy): the
// preconnected connection, else a new one with its handshake done.
func (p *Pool) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	if w := p.take("https " + addr); w != nil && network == "tcp" {
		if c := use(ctx, w); c != nil {
			return c, nil
		}
	}
	return p.handshake(ctx, addr)
}

// handshake dials addr and does the TLS handshake as http.Transport does
// (the host as ServerName, ALPN h2 then http/1.1, TLSHandshakeTimeout).
func (p *Pool) handshake(ctx context.Context, addr string) (net.Conn, error) {
	raw, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cfg := p.tls.Clone()
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	hctx, cancel := context.WithTimeout(ctx, p.t.TLSHandshakeTimeout)
	defer cancel()
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn, nil
}
