package cmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// doctor runs `agent doctor` with a config file and the environment env,
// and returns its output and exit code.
func doctor(t *testing.T, config string, env map[string]string, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	if env == nil {
		env = map[string]string{}
	}
	env["XDG_DATA_HOME"] = t.TempDir()
	c := NewRootCmd(Streams{Out: &out, Err: &out}, envOf(env), nil)
	c.SetArgs(append([]string{"doctor", "--config", config, "-C", t.TempDir()}, args...))
	err := c.Execute()
	return out.String(), exitCode(err)
}

// modelsServer answers GET /v1/models like an OpenAI-compatible server,
// with status for a request that does not carry the bearer token key.
func modelsServer(t *testing.T, key string, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"m1","object":"model"},{"id":"m2","object":"model"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestDoctor(t *testing.T) {
	url := modelsServer(t, "sk-doctor", http.StatusUnauthorized)
	config := writeConfig(t, "[sandbox]\nmode = \"read-only\"\n[permissions]\nallow = [\"ls\", \"git status\"]\ndeny = [\"rm\"]\n")

	out, code := doctor(t, config, map[string]string{"OPENAI_API_KEY": "sk-doctor"}, "--base-url", url, "--model", "m2")
	for _, want := range []string{
		"config             " + config, "sessions", "command rules      2 allow, 1 deny",
		"yes, 2 models", "model listed", "API key from OPENAI_API_KEY", "background         0 processes running",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-doctor") {
		t.Errorf("doctor printed the API key:\n%s", out)
	}
	if !strings.Contains(out, "landlock") || !strings.Contains(out, "sandbox            read-only") && !strings.Contains(out, "NOT ENFORCED") {
		t.Errorf("doctor should report the sandbox mode of the config:\n%s", out)
	}
	if strings.Contains(out, "NOT ENFORCED") != (code == ExitRuntime) {
		t.Errorf("exit %d with output:\n%s", code, out)
	}

	// A refused key and an unreachable server fail the check.
	out, code = doctor(t, config, map[string]string{"OPENAI_API_KEY": "sk-wrong"}, "--base-url", url, "--model", "m2")
	if code != ExitRuntime || !strings.Contains(out, "NO:") || strings.Contains(out, "sk-wrong") {
		t.Errorf("a refused key: exit %d\n%s", code, out)
	}
	out, code = doctor(t, config, nil, "--base-url", "http://127.0.0.1:1/v1", "--model", "m2")
	if code != ExitRuntime || !strings.Contains(out, "NO:") {
		t.Errorf("an unreachable server: exit %d\n%s", code, out)
	}
	// No model configured: said, not a crash.
	out, code = doctor(t, config, nil, "--base-url", url)
	if code != ExitRuntime || !strings.Contains(out, "no model configured") {
		t.Errorf("no model: exit %d\n%s", code, out)
	}
	// Flags override the config's sandbox.
	out, _ = doctor(t, config, nil, "--base-url", url, "--model", "m1", "--sandbox", "off")
	if !strings.Contains(out, "sandbox            off") {
		t.Errorf("--sandbox off:\n%s", out)
	}
}
