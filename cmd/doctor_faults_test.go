package cmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

func TestDoctorChecksTheEndpointSpeaksTheAPI(t *testing.T) {
	config := writeConfig(t, "[sandbox]\nmode = \"off\"\n")
	// A web server: 404 for GET /v1/models, 501 for the POST.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusNotImplemented
		if r.Method == http.MethodGet {
			status = http.StatusNotFound
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		io.WriteString(w, "<html><head><title>Error response</title></head><body>no</body></html>")
	}))
	defer web.Close()
	out, code := doctor(t, config, nil, "--base-url", web.URL+"/v1", "--model", "m")
	if code != ExitRuntime || !strings.Contains(out, "NO:") || !strings.Contains(out, "OpenAI-compatible") || strings.Contains(out, "<html") {
		t.Errorf("a web server: exit %d\n%s", code, out)
	}

	// An API server that lists no models but completes: reachable.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"OK\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer api.Close()
	out, code = doctor(t, config, nil, "--base-url", api.URL+"/v1", "--model", "m")
	if code != ExitOK || !strings.Contains(out, "one-token completion") {
		t.Errorf("an API server without a model list: exit %d\n%s", code, out)
	}
}

func TestDoctorReportsADamagedDatabase(t *testing.T) {
	srv := modelsServer(t, "sk-k", http.StatusUnauthorized)
	key := func() map[string]string { return map[string]string{"OPENAI_API_KEY": "sk-k"} }
	config := writeConfig(t, "[sandbox]\nmode = \"off\"\n")
	db := filepath.Join(t.TempDir(), "agent.db")
	out, code := doctor(t, config, key(), "--base-url", srv, "--model", "m1", "--db", db)
	if code != ExitOK || !strings.Contains(out, "not created yet") {
		t.Errorf("no database: exit %d\n%s", code, out)
	}
	st, err := sessions.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, code = doctor(t, config, key(), "--base-url", srv, "--model", "m1", "--db", db)
	if code != ExitOK || !strings.Contains(out, "quick_check ok") {
		t.Errorf("a sound database: exit %d\n%s", code, out)
	}
	os.WriteFile(db, []byte(strings.Repeat("garbage ", 1000)), 0o600)
	out, code = doctor(t, config, key(), "--base-url", srv, "--model", "m1", "--db", db)
	if code != ExitRuntime || !strings.Contains(out, "DAMAGED") || !strings.Contains(out, ".recover") {
		t.Errorf("a damaged database: exit %d\n%s", code, out)
	}
	// A run leaves its writes in the log: moving the file aside without it
	// would lose the newest sessions.
	os.WriteFile(db+"-wal", []byte("the newest sessions"), 0o600)
	out, code = doctor(t, config, key(), "--base-url", srv, "--model", "m1", "--db", db)
	if code != ExitRuntime || !strings.Contains(out, fmt.Sprintf("mv %q %q", db+"-wal", db+".damaged-wal")) {
		t.Errorf("a damaged database with its log: exit %d, want the log moved with it\n%s", code, out)
	}
}
