package headless

import (
	"math"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// TestAnOverloadedModelFallsBack: the first model's second request is
// answered 529 past its retries; the turn finishes on the fallback model,
// stderr's progress says so, stream-json carries the move, and cost_usd
// prices each model's tokens at its own price (sonnet $3/$15, haiku $1/$5
// per million).
func TestAnOverloadedModelFallsBack(t *testing.T) {
	t.Parallel()
	script := func() []sa.Reply {
		return []sa.Reply{
			sa.Answer(sa.ToolUse("t1", "list_files", `{}`)).WithUsage(sa.Usage{Input: 1000, Output: 100}),
			sa.Error(529, "overloaded_error", "Overloaded").WithRetryAfter("0.01"),
			sa.Error(529, "overloaded_error", "Overloaded").WithRetryAfter("0.01"),
			sa.Answer(sa.Text("done on the fallback")).WithUsage(sa.Usage{Input: 2000, Output: 200}),
		}
	}
	args := func(srv *sa.Server, more ...string) []string {
		return append([]string{"--provider", "anthropic", "--base-url", srv.URL(), "--model", "claude-sonnet-4-5",
			"--fallback-model", "claude-haiku-4-5", "--max-retries", "1", "--tools", "all"}, more...)
	}
	env := []string{"ANTHROPIC_API_KEY=k"}

	srv := sa.New(t, script()...)
	res := e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env, Args: args(srv, "-p", "--verbose", "list the files")})
	if res.Code != 0 || res.Stdout != "done on the fallback\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "claude-sonnet-4-5 failed after its retries") || !strings.Contains(res.Stderr, "this turn goes on with claude-haiku-4-5") {
		t.Errorf("the note is missing from stderr:\n%s", res.Stderr)
	}
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, r.Params.Model)
	}
	if strings.Join(models, ",") != "claude-sonnet-4-5,claude-sonnet-4-5,claude-sonnet-4-5,claude-haiku-4-5" {
		t.Errorf("the requests' models: %v", models)
	}

	srv = sa.New(t, script()...)
	res = e2e.Run(t, e2e.Invocation{Dir: t.TempDir(), Env: env, Args: args(srv, "-p", "--output-format", "stream-json", "list the files")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	objs := e2e.JSONLines(t, res.Stdout)
	var fell map[string]any
	for _, o := range objs {
		if o["type"] == "fallback" {
			fell = o
		}
	}
	if fell == nil || fell["from"] != "claude-sonnet-4-5" || fell["to"] != "claude-haiku-4-5" || !strings.Contains(fell["error"].(string), "529") {
		t.Errorf("the fallback object: %v", fell)
	}
	result := objs[len(objs)-1]
	want := (1000*3.0 + 100*15.0 + 2000*1.0 + 200*5.0) / 1e6
	for _, key := range []string{"cost_usd", "session_cost_usd"} {
		if got, _ := result[key].(float64); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v (each model at its own price)", key, result[key], want)
		}
	}
}
