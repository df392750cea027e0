package telemetry

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// rawReceiver keeps every OTLP/HTTP export's raw body: protobuf strings
// are UTF-8 bytes on the wire, so a secret that reached the collector is
// a substring of some body, whatever field carried it.
type rawReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newRawReceiver(t *testing.T) *rawReceiver {
	r := &rawReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rawReceiver) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

func (r *rawReceiver) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.bodies) }

// The secrets a tool result, a hook's output, the model's answer carry,
// and the part of each that must never reach the collector.
var secretShapes = []struct{ name, text, leak string }{
	{"openai project key", "OPENAI_API_KEY=sk-proj-Abc123Def456Ghi789Jkl012Mno345", "Abc123Def456Ghi789"},
	{"url with password", "DATABASE_URL=https://alice:Hunter2Passw0rd@db.example.com/prod", "Hunter2Passw0rd"},
	{"url with @ in password", "REDIS=https://bob:p@ssW0rdTail@cache.example.com", "ssW0rdTail"},
	{"rsa pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAhostileRSAbody\n-----END RSA PRIVATE KEY-----", "hostileRSAbody"},
	{"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGhostilePGPbody\n-----END PGP PRIVATE KEY BLOCK-----", "hostilePGPbody"},
	{"aws access key id", "aws_access_key_id = AKIAIOSFODNN7HOST1LE", "AKIAIOSFODNN7HOST1LE"},
	{"aws secret access key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYHOSTILEKEY", "bPxRfiCYHOSTILEKEY"},
	{"opaque bearer token", "Authorization: Bearer opaque-gateway-token-7f3a9c1d", "opaque-gateway-token-7f3a9c1d"},
	{"password in config", `password = "CorrectHorseBatteryStaple42"`, "CorrectHorseBatteryStaple42"},
}

// With content capture on, the credentials a tool result, a hook's output
// and the model's own text carry are masked before they reach the
// collector (README: "credential-looking values in them are masked as in
// sessions").
func TestCapturedContentHasEveryShapeOfSecretMasked(t *testing.T) {
	t.Parallel()
	r := newRawReceiver(t)
	var file strings.Builder
	for _, s := range secretShapes {
		file.WriteString(s.text + "\n")
	}
	hook := `echo 'hook context: token sk-proj-HookSecret1234567890abcdefXYZ and https://carol:HookPassw0rd@h.example.com'`
	dir := e2e.ExtProject(t, map[string]string{"creds.txt": file.String(),
		".claude/settings.json": e2e.ClaudeHooks("UserPromptSubmit", "", hook, 0)})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "read_file", Arguments: `{"path":"creds.txt"}`}),
		scripted.Text("Found: "+strings.ReplaceAll(file.String(), "\n", " ; ")))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.srv.URL,
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"},
		Args: e2e.AgentArgs(srv, "--trust-project", "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "read creds.txt")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if r.count() == 0 {
		t.Fatal("nothing exported")
	}
	if !r.has("creds.txt") {
		t.Fatal("content capture is on but the tool arguments are not exported: the test exercises nothing")
	}
	for _, s := range secretShapes {
		if r.has(s.leak) {
			t.Errorf("%s: %q reached the collector unmasked", s.name, s.leak)
		}
	}
	for _, leak := range []string{"HookSecret1234567890", "HookPassw0rd"} {
		if r.has(leak) {
			t.Errorf("hook output: %q reached the collector unmasked", leak)
		}
	}
}

// A provider error that echoes the request's Authorization header (as
// some gateways and proxies do) must not export the agent's own API key,
// whatever its shape: the agent knows that value. Capture is off: errors'
// messages are exported always ("Errors' messages are always masked").
func TestProviderErrorEchoingTheKeyIsMasked(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"sk-e2e-hostile-0123456789abcdef", "gw-NOTSKSHAPE-0123456789abcdef"} {
		t.Run(key[:5], func(t *testing.T) {
			t.Parallel()
			r := newRawReceiver(t)
			srv := scripted.New(t, scripted.Error(400, "bad request; received headers: Authorization: Bearer "+key))
			res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.srv.URL, "OPENAI_API_KEY=" + key},
				Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "hi")})
			if res.Code != 1 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			if !r.has("bad request") {
				t.Fatalf("the error's message was not exported: the test exercises nothing")
			}
			t.Logf("exported: %q", r.around("bad request"))
			if r.has(key[8:]) {
				t.Errorf("the API key %q reached the collector in an error message", key)
			}
			if strings.Contains(res.Stdout+res.Stderr, key[8:]) {
				t.Errorf("the API key %q was printed: stderr %q", key, res.Stderr)
			}
		})
	}
}

// With content capture off, nothing the person, the model or a tool wrote
// reaches the collector: not the prompt, the file read, the answer, the
// tool's arguments, nor the name of a tool the model made up.
func TestNoContentWithCaptureOff(t *testing.T) {
	t.Parallel()
	r := newRawReceiver(t)
	dir := t.TempDir()
	e2e.WriteFile(t, dir, "ARGMARKER.txt", "FILEMARKER\n")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "c1", Name: "read_file", Arguments: `{"path":"ARGMARKER.txt"}`},
			scripted.Call{ID: "c2", Name: "INVENTEDTOOLMARKER_with_some_content", Arguments: `{}`}),
		scripted.Text("ANSWERMARKER"))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + r.srv.URL},
		Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "-p", "PROMPTMARKER")})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if r.count() == 0 {
		t.Fatal("nothing exported")
	}
	for _, m := range []string{"PROMPTMARKER", "FILEMARKER", "ANSWERMARKER", "ARGMARKER", "INVENTEDTOOLMARKER"} {
		if r.has(m) {
			t.Errorf("%s reached the collector with content capture off", m)
		}
	}
}

func (r *rawReceiver) around(s string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.bodies {
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte(s))
			if j < 0 {
				break
			}
			lo, hi := max(0, i+j-40), min(len(b), i+j+160)
			out = append(out, strings.ToValidUTF8(string(b[lo:hi]), "?"))
			i += j + 1
		}
	}
	return out
}
