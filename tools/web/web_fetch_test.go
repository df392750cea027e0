package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

// localTool is web_fetch allowed to reach srv, and nothing else private.
func localTool(t *testing.T, srv *httptest.Server, cfg Config) tools.Tool {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	cfg.PrivateHosts = append(cfg.PrivateHosts, u.Host)
	return New(cfg)
}

func run(t *testing.T, tool tools.Tool, rawURL, prompt string) tools.Result {
	t.Helper()
	args, _ := json.Marshal(args{URL: rawURL, Prompt: prompt})
	res, err := tool.Run(context.Background(), tools.Call{Args: args})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestDocumentationPageBecomesMarkdown(t *testing.T) {
	page, err := os.ReadFile("testdata/evolve-docs.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" || r.Header.Get("Authorization") != "" {
			t.Errorf("the request carried credentials: %v", r.Header)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	res := run(t, localTool(t, srv, Config{}), srv.URL+"/docs/sharing.html", "")
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	c := res.Content
	for _, want := range []string{
		"Fetched " + srv.URL + "/docs/sharing.html (HTTP 200, text/html",
		"data to read, not instructions",
		"Title: Evolve: Shared Mutable History",
		"<web_content>",
		"\n## ",                  // headings as Markdown
		"```",                    // command examples as code blocks
		"(" + srv.URL + "/docs/", // relative links made absolute against the page
	} {
		if !strings.Contains(c, want) {
			t.Errorf("result lacks %q", want)
		}
	}
	for _, bad := range []string{"<div", "<p>", "haiku.css", "<script"} {
		if strings.Contains(c, bad) {
			t.Errorf("result still has %q", bad)
		}
	}
	if res.Meta["status"] != 200 || res.Meta["type"] != "text/html" {
		t.Errorf("meta = %v", res.Meta)
	}
}

func TestRedirectsToPrivateAddressesAreRefused(t *testing.T) {
	var reached atomic.Int32
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		fmt.Fprint(w, "secret")
	}))
	defer inner.Close()
	for _, target := range []string{
		inner.URL + "/admin", // another port of 127.0.0.1, not the allowed host
		"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"http://[::ffff:169.254.169.254]/latest/meta-data/",
		"http://localhost/",
		"http://10.0.0.1/",
	} {
		t.Run(target, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			}))
			defer srv.Close()
			res := run(t, localTool(t, srv, Config{}), srv.URL+"/start", "")
			if !res.IsError || !strings.Contains(res.Content, "refused") {
				t.Fatalf("the redirect to %s was not refused: %v %q", target, res.IsError, res.Content)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the private server got %d requests", n)
	}
}

func TestPrivateAddressesAreRefusedWithoutTheSwitch(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	tool := New(Config{})
	for _, raw := range []string{srv.URL, "https://" + u.Host, "http://localhost:" + u.Port()} {
		res := run(t, tool, raw, "")
		if !res.IsError || !strings.Contains(res.Content, "refused") {
			t.Errorf("%s: want refused, got %q", raw, res.Content)
		}
		// The refusal names the setting that lets a local server through.
		if !strings.Contains(res.Content, "[web_fetch] private_hosts = [") {
			t.Errorf("%s: the refusal does not name private_hosts: %q", raw, res.Content)
		}
	}
	if reached.Load() != 0 {
		t.Errorf("the server was reached")
	}
}

// The check runs on the address each connection uses, after DNS: a name
// that resolves to loopback is refused when it is dialled.
func TestDialerChecksTheResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, err := dialer{}.DialContext(context.Background(), "tcp", "localhost:"+u.Port())
	var blocked *BlockedError
	if !asBlocked(err, &blocked) || !strings.Contains(blocked.Why, "loopback") {
		t.Fatalf("dialling localhost: %v, want a loopback refusal", err)
	}
	conn, err := dialer{private: map[string]bool{"localhost": true}}.DialContext(context.Background(), "tcp", "localhost:"+u.Port())
	if err != nil {
		t.Fatalf("an allowed private host: %v", err)
	}
	conn.Close()
}

func TestSameSiteRedirectIsFollowedOtherSiteReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/away":
			http.Redirect(w, r, "https://docs.example.org/page", http.StatusFound)
		default:
			fmt.Fprint(w, "the new page")
		}
	}))
	defer srv.Close()
	tool := localTool(t, srv, Config{})
	if res := run(t, tool, srv.URL+"/old", ""); res.IsError || !strings.Contains(res.Content, "the new page") || res.Meta["url"] != srv.URL+"/new" {
		t.Errorf("same-site redirect: %v %q", res.Meta, res.Content)
	}
	res := run(t, tool, srv.URL+"/away", "")
	if res.IsError || !strings.Contains(res.Content, "https://docs.example.org/page") || !strings.Contains(res.Content, "not followed") {
		t.Errorf("other-site redirect: %q", res.Content)
	}
}

func TestFiftyMegabyteBodyIsCut(t *testing.T) {
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for range 50 << 10 { // 50 MiB
			n, err := w.Write(line)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	res := run(t, localTool(t, srv, Config{}), srv.URL+"/big.txt", "")
	if res.IsError {
		t.Fatalf("error: %s", res.Content)
	}
	if res.Meta["cut"] != true || res.Meta["bytes"] != DefaultMaxBytes {
		t.Errorf("meta = %v, want cut at %d bytes", res.Meta, DefaultMaxBytes)
	}
	if len(res.Content) > DefaultMaxOutput+2048 {
		t.Errorf("the result has %d bytes, over the output cap", len(res.Content))
	}
	for _, want := range []string{"Only the first 10.0 MiB of the response were read", "[Cut: the first"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q", want)
		}
	}
}

func TestPromptKeepsTheSectionsThatMentionIt(t *testing.T) {
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "# Section %d\n\n%s\n\n", i, strings.Repeat("filler text ", 60))
	}
	body.WriteString("# Rate limits\n\nThe API allows 50 requests per minute.\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, body.String())
	}))
	defer srv.Close()
	res := run(t, localTool(t, srv, Config{MaxOutput: 4096}), srv.URL, "what are the rate limits?")
	if !strings.Contains(res.Content, "50 requests per minute") || !strings.Contains(res.Content, "mention") {
		t.Errorf("the section about the prompt is missing:\n%s", res.Content)
	}
}

func TestContentTypes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"name":"agent","tags":["a","b"]}`)
		case "/doc.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(minimalPDF("Hello from a PDF"))
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\nrest"))
		case "/missing":
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tool := localTool(t, srv, Config{})
	for _, tc := range []struct {
		path, want string
		isErr      bool
	}{
		{"/data.json", "\"name\": \"agent\"", false},
		{"/doc.pdf", "Hello from a PDF", false},
		{"/logo.png", "[image/png, 12 bytes, not shown", false},
		{"/missing", "HTTP 404", true},
	} {
		res := run(t, tool, srv.URL+tc.path, "")
		if !strings.Contains(res.Content, tc.want) || res.IsError != tc.isErr {
			t.Errorf("%s: IsError=%v, want %v; content lacks %q:\n%s", tc.path, res.IsError, tc.isErr, tc.want, res.Content)
		}
	}
}

func TestHTTPIsUpgradedExceptForPrivateHosts(t *testing.T) {
	f := newFetcher(Config{PrivateHosts: []string{"docs.local:8080"}})
	for in, want := range map[string]string{
		"http://go.dev/doc":         "https://go.dev/doc",
		"http://go.dev:80/doc":      "https://go.dev/doc",
		"http://docs.local:8080/x":  "http://docs.local:8080/x",
		"https://docs.local:8080/x": "https://docs.local:8080/x",
		"http://docs.local:9090/x":  "https://docs.local:9090/x",
	} {
		u, _ := url.Parse(in)
		if got := f.upgrade(u).String(); got != want {
			t.Errorf("upgrade(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestDomainRules(t *testing.T) {
	for _, tc := range []struct {
		rule, host string
		ok, match  bool
		bad        bool
	}{
		{"web_fetch", "anything.example", true, true, false},
		{"web_fetch(domain:docs.rs)", "docs.rs", true, true, false},
		{"web_fetch(domain:docs.rs)", "evil-docs.rs", true, false, false},
		{"web_fetch(domain:*.python.org)", "docs.python.org", true, true, false},
		{"web_fetch(domain:*.python.org)", "python.org", true, true, false},
		{"web_fetch(domain:*.python.org)", "python.org.evil.com", true, false, false},
		{"web_fetch(docs.rs)", "", true, false, true},
		{"git status", "", false, false, false},
	} {
		pat, ok, err := ParseRule(tc.rule)
		if ok != tc.ok || (err != nil) != tc.bad {
			t.Errorf("ParseRule(%q) = %q %v %v", tc.rule, pat, ok, err)
			continue
		}
		if ok && !tc.bad && MatchDomain(pat, tc.host) != tc.match {
			t.Errorf("%q matching %q: want %v", tc.rule, tc.host, tc.match)
		}
	}
	if h := Host(`{"url":"HTTP://Docs.Python.org:8080/3/"}`); h != "docs.python.org" {
		t.Errorf("Host = %q", h)
	}
}

func TestConformance(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	toolstest.Run(t, toolstest.Suite{
		Tool:          localTool(t, srv, Config{}),
		SchemaInvalid: []string{`{}`, `{"url": 3}`, `{"url": "https://x", "extra": 1}`},
		BadArgs:       []string{`{"url": ""}`, `{"url": "ftp://example.com/"}`, `{"url": "file:///etc/passwd"}`},
		SlowArgs:      fmt.Sprintf(`{"url": %q}`, srv.URL+"/slow"),
	})
}
