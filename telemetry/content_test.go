package telemetry_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/telemetry"
)

// Secrets of the shapes shell.MaskSecrets masks.
const (
	apiKey      = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123"
	urlPassword = "hunter2pass"
)

// contentTurn runs a turn whose system prompt, prompt, tool call, tool
// result and answer each carry a marker, and a secret in the prompt and
// the arguments (the echo tool's result repeats them).
func contentTurn(t *testing.T, capture bool) *rig {
	t.Helper()
	r := newRig(t, telemetry.Settings{CaptureContent: capture}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	args := `{"x":"ARGS-MARK https://alice:` + urlPassword + `@git.example/r.git"}`
	l := newLoop(t, fake.New(fake.ToolCalls(fake.Call{ID: "c1", Name: "echo", Arguments: args}), fake.Text("REPLY-MARK done")), tr)
	run(l, conversation.New("SYSTEM-MARK be brief", nil), "PROMPT-MARK my key is "+apiKey)
	r.finish(t)
	return r
}

// content are the markers of contentTurn: "echo: {" begins the tool's
// result only.
var content = []string{"SYSTEM-MARK", "PROMPT-MARK", "ARGS-MARK", "echo: {", "REPLY-MARK"}

func TestWithoutCaptureNoContentIsExported(t *testing.T) {
	all := contentTurn(t, false).everything()
	for _, s := range append(content, apiKey, urlPassword) {
		if strings.Contains(all, s) {
			t.Errorf("%q is exported with capture off", s)
		}
	}
}

func TestCapturedContentHasItsSecretsMasked(t *testing.T) {
	r := contentTurn(t, true)
	all := r.everything()
	for _, s := range content {
		if !strings.Contains(all, s) {
			t.Errorf("%q is not exported with capture on", s)
		}
	}
	for _, s := range []string{apiKey, urlPassword} {
		if strings.Contains(all, s) {
			t.Errorf("the secret %q is exported", s)
		}
	}
	if !strings.Contains(all, "[secret masked]") || !strings.Contains(all, "https://alice:[secret masked]@git.example") {
		t.Errorf("no masked secret in what was exported")
	}

	// Each piece is where the conventions put it.
	if body := r.recordsOf("agent.prompt")[0].Body().AsString(); !strings.Contains(body, "PROMPT-MARK") {
		t.Errorf("the prompt record's body %q", body)
	}
	tool := attrs(r.span(t, "execute_tool echo").Attributes)
	if !strings.Contains(tool["gen_ai.tool.call.arguments"].AsString(), "ARGS-MARK") ||
		!strings.HasPrefix(tool["gen_ai.tool.call.result"].AsString(), "echo: {") {
		t.Errorf("the tool's span: arguments %q, result %q", tool["gen_ai.tool.call.arguments"].AsString(), tool["gen_ai.tool.call.result"].AsString())
	}
	last := attrs(spansNamed(r, "chat m")[1].Attributes)
	for key, want := range map[string]string{
		"gen_ai.system_instructions": "SYSTEM-MARK", "gen_ai.input.messages": "echo: {", "gen_ai.output.messages": "REPLY-MARK",
	} {
		if !strings.Contains(last[attribute.Key(key)].AsString(), want) {
			t.Errorf("the second request's %s %q lacks %q", key, last[attribute.Key(key)].AsString(), want)
		}
	}
}

func TestErrorsHaveTheirSecretsMasked(t *testing.T) {
	r := newRig(t, telemetry.Settings{}, telemetry.Options{})
	tr := r.tel.Session(context.Background(), telemetry.Session{Frontend: "headless", Provider: "openai"})
	failure := errors.New("POST https://bob:" + urlPassword + "@api.example/v1 with " + apiKey + ": 500")
	run(newLoop(t, fake.New(fake.Error(failure)), tr), conversation.New("", nil), "go")
	r.finish(t)
	all := r.everything()
	for _, s := range []string{apiKey, urlPassword} {
		if strings.Contains(all, s) {
			t.Errorf("the secret %q of an error is exported:\n%s", s, all)
		}
	}
	if !strings.Contains(all, "POST https://bob:[secret masked]@api.example/v1") {
		t.Errorf("the error is not exported, masked:\n%s", all)
	}
}
