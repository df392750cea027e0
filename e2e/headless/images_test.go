package headless

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// A headless run with --image and an @mention of an image sends both
// pictures to an Anthropic model as image blocks; the model's read_file of
// a third image comes back as an image block in its tool result; and a
// continued session, loaded from the database where each image is stored
// once by its hash, sends the same bytes again.
func TestImagesReachAnAnthropicModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	attached := e2e.PNGFile(t, t.TempDir(), "pasted.png", 20, 10)
	pasted := filepath.Join(t.TempDir(), "pasted.png")
	os.WriteFile(pasted, attached, 0o644)
	mentioned := e2e.PNGFile(t, dir, "shot.png", 30, 15)
	read := e2e.PNGFile(t, dir, "diagram.png", 40, 20)
	srv := sa.New(t,
		sa.Answer(sa.ToolUse("toolu_1", "read_file", `{"path":"diagram.png"}`)),
		sa.Answer(sa.Text("Three images seen.")),
		sa.Answer(sa.Text("Still there.")),
	)
	db := filepath.Join(t.TempDir(), "a.db")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-e2e"}
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AnthropicArgs(srv, "--db", db, "--tools", "all", "-p", "compare @shot.png with this", "--image", pasted)})
	if res.Code != 0 || !strings.Contains(res.Stdout, "Three images seen.") {
		t.Fatalf("exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	b64 := base64.StdEncoding.EncodeToString
	reqs := srv.Requests()
	if got := e2e.ImageSources(t, reqs[0].Body); len(got) != 2 || got[0] != b64(attached) || got[1] != b64(mentioned) {
		t.Errorf("first request's images: %d, want --image's then the mention's", len(got))
	}
	if got := e2e.ImageSources(t, reqs[1].Body); len(got) != 3 || got[2] != b64(read) {
		t.Errorf("second request's images: %d, want the read_file result's third", len(got))
	}
	res = e2e.Run(t, e2e.Invocation{Dir: dir, Env: env, Args: e2e.AnthropicArgs(srv, "--db", db, "--tools", "all", "-c", "-p", "and now?")})
	if res.Code != 0 {
		t.Fatalf("continue: exit %d\n%s", res.Code, res.Stderr)
	}
	if got := e2e.ImageSources(t, srv.Requests()[2].Body); len(got) != 3 || got[0] != b64(attached) || got[1] != b64(mentioned) || got[2] != b64(read) {
		t.Errorf("the continued session sent %d images, or other bytes", len(got))
	}
}

// OpenAI chat completions: a model the table says takes images gets an
// image_url data URL; one it does not know (the scripted model) gets the
// description, unless its profile says images = true.
func TestImagesReachAnOpenAIModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := e2e.PNGFile(t, dir, "shot.png", 12, 12)
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	config := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte("[profiles.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"scripted-model\"\nimages = true\n"), 0o644)
	for _, tc := range []struct {
		name  string
		args  []string
		image bool
	}{
		{"a vision model by name", []string{"--model", "gpt-4.1"}, true},
		{"an unknown model", nil, false},
		{"an unknown model with images = true", []string{"--config", config, "--profile", "local"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := scripted.New(t, scripted.Text("ok"))
			args := append(e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "-p", "what is this?", "--image", filepath.Join(dir, "shot.png")), tc.args...)
			if res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: args}); res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			body := string(srv.Requests()[0].Body)
			if strings.Contains(body, url) != tc.image || strings.Contains(body, "not shown]") == tc.image {
				t.Errorf("image sent: %v, want %v:\n%.600s", strings.Contains(body, url), tc.image, body)
			}
		})
	}
}
