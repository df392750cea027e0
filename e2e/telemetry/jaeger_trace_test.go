package telemetry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// jobSpan is the span of the CI job whose trace a run joins (W3C
// traceparent: version, trace id, parent span id, flags).
const jobSpan = "00f067aa0ba902b7"

// toolAndSubagent is a model whose first step runs a command (which
// writes the TRACEPARENT it sees) and a subagent (which reads a file),
// and whose second answers.
func toolAndSubagent(req scripted.ChatRequest) scripted.Reply {
	switch {
	case e2e.IsChild(req) && !e2e.HasToolResults(req):
		return scripted.ToolCalls(scripted.Call{ID: "child_read", Name: "read_file", Arguments: `{"path":"README.md"}`})
	case e2e.IsChild(req):
		return scripted.Text("the readme is short")
	case !e2e.HasToolResults(req):
		return scripted.ToolCalls(
			scripted.Call{ID: "call_bash", Name: "bash", Arguments: `{"command":"printf %s \"$TRACEPARENT\" > traceparent.txt"}`},
			e2e.TaskCall("call_task", "read the readme", "what does README.md say?"))
	}
	return scripted.Text("done: the readme is short")
}

// A run with a tool call and a subagent is one trace in Jaeger, joined to
// the TRACEPARENT it was given: invoke_agent under the job's span, a chat
// span per request and an execute_tool span per call under it, the
// subagent's invoke_agent under its task call, with the GenAI
// conventions' attributes; the command sees a TRACEPARENT of the run's
// trace whose parent is its own call's span. Over OTLP/HTTP and gRPC.
func TestRunIsOneTraceInJaeger(t *testing.T) {
	t.Parallel()
	j := e2e.StartJaeger(t)
	for _, tc := range []struct{ protocol, endpoint, trace string }{
		{"http/protobuf", j.OTLPHTTP, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"grpc", j.OTLPGRPC, "5cf92f3577b34da6a3ce929d0e0e4737"},
	} {
		t.Run(strings.ReplaceAll(tc.protocol, "/", "_"), func(t *testing.T) {
			trace := tc.trace
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("# readme\n"), 0o644)
			srv := scripted.NewWithOptions(t, scripted.Options{Respond: toolAndSubagent})
			res := e2e.Run(t, e2e.Invocation{Dir: dir,
				Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + tc.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + tc.protocol,
					"OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none", // Jaeger takes traces only
					"TRACEPARENT=00-" + trace + "-" + jobSpan + "-01", "OTEL_SERVICE_NAME=agent-e2e"},
				Args: e2e.AgentArgs(srv, "--db", filepath.Join(t.TempDir(), "agent.db"), "--tools", "all", "--allow-bash",
					"--output-format", "json", "-p", "read it")})
			if res.Code != 0 {
				t.Fatalf("exit %d: %s", res.Code, res.Stderr)
			}
			var out struct {
				SessionID string `json:"session_id"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.SessionID == "" {
				t.Fatalf("output %q: %v", res.Stdout, err)
			}
			if strings.Contains(res.Stderr, "telemetry") {
				t.Errorf("a telemetry warning with a working collector: %s", res.Stderr)
			}
			// invoke_agent, 2 chats, bash, task, the child's invoke_agent,
			// its 2 chats and its read_file.
			spans := j.Trace(t, trace, 9)
			checkTrace(t, spans, trace, out.SessionID)

			seen, err := os.ReadFile(filepath.Join(dir, "traceparent.txt"))
			if err != nil {
				t.Fatalf("the command wrote no TRACEPARENT: %v", err)
			}
			parts := strings.Split(string(seen), "-")
			if len(parts) != 4 || parts[1] != trace {
				t.Fatalf("the command saw TRACEPARENT %q, want one of trace %s", seen, trace)
			}
			if bash := find(t, spans, "execute_tool bash"); parts[2] != bash.SpanID {
				t.Errorf("the command's TRACEPARENT names span %s, want its call's, %s", parts[2], bash.SpanID)
			}
			// Each request to the model's server carries its chat span's
			// traceparent.
			chats := map[string]bool{}
			for _, s := range spans {
				if s.OperationName == "chat scripted-model" {
					chats[s.SpanID] = true
				}
			}
			for i, r := range srv.Requests() {
				p := strings.Split(r.Header.Get("traceparent"), "-")
				if len(p) != 4 || p[1] != trace || !chats[p[2]] {
					t.Errorf("request %d's traceparent %q: want trace %s and a chat span's id", i, r.Header.Get("traceparent"), trace)
				}
			}
		})
	}
}

// checkTrace checks the shape of a run's trace and its attributes.
func checkTrace(t *testing.T, spans []e2e.JaegerSpan, trace, session string) {
	t.Helper()
	byID := map[string]e2e.JaegerSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	root := find(t, spans, "invoke_agent agent")
	if root.Parent() != jobSpan {
		t.Errorf("invoke_agent's parent is %q, want the TRACEPARENT's span %s", root.Parent(), jobSpan)
	}
	want := map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "scripted-model", "gen_ai.conversation.id": session, "agent.frontend": "headless",
		"agent.stop_reason": "answered"}
	checkTags(t, root, want)

	chats, tools := 0, map[string]e2e.JaegerSpan{}
	for _, s := range spans {
		switch {
		case s.OperationName == "chat scripted-model" && s.Parent() == root.SpanID:
			chats++
			checkTags(t, s, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
				"gen_ai.request.model": "scripted-model", "gen_ai.response.model": "scripted-model",
				"gen_ai.usage.input_tokens": "10", "gen_ai.usage.output_tokens": "5", "gen_ai.conversation.id": session,
				"gen_ai.usage.cache_read.input_tokens": "0"})
			if s.Tag("gen_ai.response.finish_reasons") == "" {
				t.Errorf("chat span without gen_ai.response.finish_reasons: %+v", s.Tags)
			}
		case strings.HasPrefix(s.OperationName, "execute_tool ") && s.Parent() == root.SpanID:
			tools[s.Tag("gen_ai.tool.name")] = s
		}
	}
	if chats != 2 {
		t.Errorf("%d chat spans under invoke_agent, want 2", chats)
	}
	checkTags(t, tools["bash"], map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "call_bash",
		"agent.tool.decision": "allowed"})
	task := tools["task"]
	checkTags(t, task, map[string]string{"gen_ai.tool.call.id": "call_task", "agent.tool.decision": "allowed"})

	child := find(t, spans, "invoke_agent subagent")
	if child.Parent() != task.SpanID {
		t.Errorf("the subagent's invoke_agent is under %q, want its task call's span %s", byID[child.Parent()].OperationName, task.SpanID)
	}
	checkTags(t, child, map[string]string{"agent.parent_call.id": "call_task", "gen_ai.agent.name": "subagent"})
	childChats, childRead := 0, false
	for _, s := range spans {
		if s.Parent() != child.SpanID {
			continue
		}
		switch s.OperationName {
		case "chat scripted-model":
			childChats++
		case "execute_tool read_file":
			childRead = true
		}
	}
	if childChats != 2 || !childRead {
		t.Errorf("under the subagent: %d chat spans (want 2), read_file %v (want it)", childChats, childRead)
	}
	for _, s := range spans {
		if s.TraceID != trace {
			t.Errorf("span %s is in trace %s, want %s", s.OperationName, s.TraceID, trace)
		}
	}
}

// find returns the span named op.
func find(t *testing.T, spans []e2e.JaegerSpan, op string) e2e.JaegerSpan {
	t.Helper()
	for _, s := range spans {
		if s.OperationName == op {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.OperationName)
	}
	t.Fatalf("no span %q among %v", op, names)
	return e2e.JaegerSpan{}
}

// checkTags checks that s has each tag of want with its value.
func checkTags(t *testing.T, s e2e.JaegerSpan, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := s.Tag(k); got != v {
			t.Errorf("span %q: %s = %q, want %q", s.OperationName, k, got, v)
		}
	}
}
