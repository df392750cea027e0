package telemetry

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/shell"
)

// maxContent bounds one captured attribute or record body, in bytes: a
// session's whole history would otherwise ride on every request's span.
const maxContent = 32 << 10

// captured is s as it may be exported: credential-looking values masked
// as the session store masks them (shell.MaskSecrets), and cut at
// maxContent bytes with a marker.
func captured(s string) string {
	// OTLP's protobuf strings must be UTF-8: an export with one string
	// that is not is refused whole.
	s = shell.MaskSecrets(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) > maxContent {
		cut := maxContent
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…[cut]"
	}
	return s
}

// failSpan marks span failed with err: an exception event and the error
// status, whose message is masked as captured content is (an error can
// carry a URL with its password, or a key), whether or not content is
// captured. span.RecordError would export the message as it is.
func failSpan(span trace.Span, err error) {
	msg := captured(err.Error())
	span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(semconv.ExceptionType(fmt.Sprintf("%T", err)), semconv.ExceptionMessage(msg)))
	span.SetStatus(codes.Error, msg)
}

// genaiPart is a message part in the shape of the GenAI conventions'
// gen_ai.input.messages and gen_ai.output.messages.
type genaiPart struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Response  string `json:"response,omitempty"`
}

type genaiMessage struct {
	Role         string      `json:"role"`
	Parts        []genaiPart `json:"parts"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

// messagesJSON renders msgs in the conventions' message shape, masked and
// bounded (see captured). Images are left out.
func messagesJSON(msgs []providers.Message, finish providers.FinishReason) string {
	out := make([]genaiMessage, 0, len(msgs))
	for _, m := range msgs {
		gm := genaiMessage{Role: string(m.Role), FinishReason: string(finish)}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case providers.Text:
				gm.Parts = append(gm.Parts, genaiPart{Type: "text", Content: p.Text})
			case providers.Reasoning:
				if p.Text != "" {
					gm.Parts = append(gm.Parts, genaiPart{Type: "reasoning", Content: p.Text})
				}
			case providers.ToolCall:
				gm.Parts = append(gm.Parts, genaiPart{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: p.Arguments})
			case providers.ToolResult:
				gm.Parts = append(gm.Parts, genaiPart{Type: "tool_call_response", ID: p.CallID, Response: p.Content})
			}
		}
		out = append(out, gm)
	}
	b, _ := json.Marshal(out)
	return captured(string(b))
}
