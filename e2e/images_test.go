package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/scripted"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

func pngFile(t *testing.T, dir, name string, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)))
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageSources are the base64 data of every image block of an Anthropic
// request, in order, tool results' included.
func imageSources(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "image" {
				if src, ok := v["source"].(map[string]any); ok && src["type"] == "base64" {
					out = append(out, src["data"].(string))
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var req struct{ Messages []any }
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	walk(req.Messages)
	return out
}

// A headless run with --image and an @mention of an image sends both
// pictures to an Anthropic model as image blocks; the model's read_file of
// a third image comes back as an image block in its tool result; and a
// continued session, loaded from the database where each image is stored
// once by its hash, sends the same bytes again.
func TestImagesReachAnAnthropicModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	attached := pngFile(t, t.TempDir(), "pasted.png", 20, 10)
	pasted := filepath.Join(t.TempDir(), "pasted.png")
	os.WriteFile(pasted, attached, 0o644)
	mentioned := pngFile(t, dir, "shot.png", 30, 15)
	read := pngFile(t, dir, "diagram.png", 40, 20)
	srv := sa.New(t,
		sa.Answer(sa.ToolUse("toolu_1", "read_file", `{"path":"diagram.png"}`)),
		sa.Answer(sa.Text("Three images seen.")),
		sa.Answer(sa.Text("Still there.")),
	)
	db := filepath.Join(t.TempDir(), "a.db")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-e2e"}
	res := run(t, invocation{dir: dir, env: env, args: anthropicArgs(srv, "--db", db, "--tools", "all", "-p", "compare @shot.png with this", "--image", pasted)})
	if res.code != 0 || !strings.Contains(res.stdout, "Three images seen.") {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	b64 := base64.StdEncoding.EncodeToString
	reqs := srv.Requests()
	if got := imageSources(t, reqs[0].Body); len(got) != 2 || got[0] != b64(attached) || got[1] != b64(mentioned) {
		t.Errorf("first request's images: %d, want --image's then the mention's", len(got))
	}
	if got := imageSources(t, reqs[1].Body); len(got) != 3 || got[2] != b64(read) {
		t.Errorf("second request's images: %d, want the read_file result's third", len(got))
	}
	res = run(t, invocation{dir: dir, env: env, args: anthropicArgs(srv, "--db", db, "--tools", "all", "-c", "-p", "and now?")})
	if res.code != 0 {
		t.Fatalf("continue: exit %d\n%s", res.code, res.stderr)
	}
	if got := imageSources(t, srv.Requests()[2].Body); len(got) != 3 || got[0] != b64(attached) || got[1] != b64(mentioned) || got[2] != b64(read) {
		t.Errorf("the continued session sent %d images, or other bytes", len(got))
	}
}

// OpenAI chat completions: a model the table says takes images gets an
// image_url data URL; one it does not know (the scripted model) gets the
// description, unless its profile says images = true.
func TestImagesReachAnOpenAIModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pngFile(t, dir, "shot.png", 12, 12)
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
			args := append(agentArgs(srv, "--db", filepath.Join(t.TempDir(), "a.db"), "-p", "what is this?", "--image", filepath.Join(dir, "shot.png")), tc.args...)
			if res := run(t, invocation{dir: dir, args: args}); res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			body := string(srv.Requests()[0].Body)
			if strings.Contains(body, url) != tc.image || strings.Contains(body, "not shown]") == tc.image {
				t.Errorf("image sent: %v, want %v:\n%.600s", strings.Contains(body, url), tc.image, body)
			}
		})
	}
}
