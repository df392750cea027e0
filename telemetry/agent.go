package telemetry

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
)

// The agent's own attributes, beside the GenAI conventions'.
const (
	// AttrFrontend is the front-end a session runs in: tui, headless,
	// acp or sdk.
	AttrFrontend = attribute.Key("agent.frontend")
	// AttrDecision is a tool call's approval: allowed or denied;
	// AttrDecidedBy who or what decided, when known (a rule, a hook,
	// the person).
	AttrDecision  = attribute.Key("agent.tool.decision")
	AttrDecidedBy = attribute.Key("agent.tool.decided_by")
	// AttrApprovalWait is how long the approval took, in milliseconds.
	AttrApprovalWait = attribute.Key("agent.tool.approval_wait_ms")
	// AttrStopReason is why a turn ended (loop.StopReason).
	AttrStopReason = attribute.Key("agent.stop_reason")
	// AttrStep is a request's step in its turn (0: a compaction's).
	AttrStep = attribute.Key("agent.step")
	// AttrCompaction marks a compaction's turn and summary request.
	AttrCompaction = attribute.Key("agent.compaction")
	// AttrParentCall is a subagent's parent tool call id.
	AttrParentCall = attribute.Key("agent.parent_call.id")
)

// Session is who a session's telemetry is about.
type Session struct {
	// Frontend is tui, headless, acp or sdk.
	Frontend string
	// Provider is the session's wire protocol (profile's openai,
	// openai-responses or anthropic), reported as gen_ai.provider.name.
	Provider string
}

// Session counts a session that opens (agent.sessions) and returns the
// loop.Tracer of its loops, its subagents' included; nil (a nil
// loop.Tracer, not a nil pointer in one) when t is nil.
func (t *Telemetry) Session(ctx context.Context, s Session) loop.Tracer {
	if t == nil {
		return nil
	}
	st := &sessionTracer{t: t, frontend: s.Frontend, provider: providerName(s.Provider)}
	t.inst.sessions.Add(ctx, 1, metric.WithAttributes(AttrFrontend.String(s.Frontend)))
	return st
}

// providerName maps the wire protocol onto the conventions'
// gen_ai.provider.name values.
func providerName(protocol string) genaiconv.ProviderNameAttr {
	switch {
	case protocol == "anthropic":
		return genaiconv.ProviderNameAnthropic
	case strings.HasPrefix(protocol, "openai"):
		return genaiconv.ProviderNameOpenAI
	}
	return genaiconv.ProviderNameAttr(protocol)
}

// sessionTracer is one session's loop.Tracer.
type sessionTracer struct {
	t        *Telemetry
	frontend string
	provider genaiconv.ProviderNameAttr
}

var _ loop.Tracer = (*sessionTracer)(nil)

// Turn starts invoke_agent: the session's agent, or a subagent under its
// task call's span.
func (s *sessionTracer) Turn(ctx context.Context, tt loop.TraceTurn) (context.Context, func(loop.Done)) {
	ctx = s.t.Context(ctx)
	name, agent := "invoke_agent agent", "agent"
	if tt.Origin.Nested() {
		name, agent = "invoke_agent subagent", "subagent"
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIProviderNameKey.String(string(s.provider)),
		semconv.GenAIRequestModel(tt.Model), semconv.GenAIAgentName(agent), AttrFrontend.String(s.frontend),
	}
	if tt.Session != "" {
		attrs = append(attrs, semconv.GenAIConversationID(tt.Session))
	}
	if tt.Origin.Nested() {
		attrs = append(attrs, AttrParentCall.String(tt.Origin.ParentCallID))
		if s.t.capture { // the model wrote it: content
			attrs = append(attrs, semconv.GenAIAgentDescription(captured(tt.Origin.Label)))
		}
	}
	if tt.Compaction {
		name = "compact"
		attrs = append(attrs, AttrCompaction.Bool(true))
	}
	ctx, span := s.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if !tt.Compaction {
		rec := s.record("agent.prompt", otellog.SeverityInfo, tt.Session, tt.Model)
		if s.t.capture {
			rec.SetBody(attribute.StringValue(captured(tt.Prompt.Text())))
		}
		s.t.logger.Emit(ctx, rec)
	}
	return ctx, func(d loop.Done) {
		span.SetAttributes(AttrStopReason.String(string(d.Reason)),
			semconv.GenAIUsageInputTokens(d.Usage.InputTokens), semconv.GenAIUsageOutputTokens(d.Usage.OutputTokens))
		if d.Reason != loop.StopAnswered && d.Err != nil {
			failSpan(span, d.Err)
			rec := s.record("agent.error", otellog.SeverityError, tt.Session, tt.Model)
			rec.SetBody(attribute.StringValue(captured(d.Err.Error())))
			rec.AddAttributes(attribute.String(string(AttrStopReason), string(d.Reason)))
			s.t.logger.Emit(ctx, rec)
		}
		span.End()
	}
}

// Request starts chat {model}, a client span whose context the request's
// HTTP call carries (traceparent).
func (s *sessionTracer) Request(ctx context.Context, r loop.TraceRequest) (context.Context, func(loop.TraceResponse)) {
	start := time.Now()
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(string(s.provider)),
		semconv.GenAIRequestModel(r.Model), AttrStep.Int(r.Step), AttrFrontend.String(s.frontend),
	}
	if r.Session != "" {
		attrs = append(attrs, semconv.GenAIConversationID(r.Session))
	}
	if r.Compaction {
		attrs = append(attrs, AttrCompaction.Bool(true))
	}
	if s.t.capture {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(messagesJSON(r.Request.Messages, "")),
			semconv.GenAISystemInstructionsKey.String(captured(r.Request.System)))
	}
	ctx, span := s.t.tracer.Start(ctx, "chat "+r.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(e loop.TraceResponse) {
		u, model := e.Response.Usage, r.Model
		if e.Response.Model != "" {
			model = e.Response.Model
		}
		end := []attribute.KeyValue{
			semconv.GenAIResponseModel(model),
			semconv.GenAIUsageInputTokens(u.InputTokens), semconv.GenAIUsageOutputTokens(u.OutputTokens),
			semconv.GenAIUsageCacheReadInputTokens(u.CachedInputTokens), semconv.GenAIUsageCacheCreationInputTokens(u.CacheWriteTokens),
		}
		if e.Response.FinishReason != "" {
			end = append(end, semconv.GenAIResponseFinishReasons(string(e.Response.FinishReason)))
		}
		if s.t.capture {
			end = append(end, semconv.GenAIOutputMessagesKey.String(messagesJSON([]providers.Message{e.Response.Message}, e.Response.FinishReason)))
		}
		span.SetAttributes(end...)
		metricAttrs := []attribute.KeyValue{genaiconv.ClientTokenUsage{}.AttrRequestModel(r.Model),
			genaiconv.ClientTokenUsage{}.AttrResponseModel(model), AttrFrontend.String(s.frontend)}
		if e.Err != nil {
			failSpan(span, e.Err)
			metricAttrs = append(metricAttrs, semconv.ErrorTypeOther)
		}
		s.t.inst.duration.Record(ctx, time.Since(start).Seconds(), genaiconv.OperationNameChat, s.provider, metricAttrs...)
		s.t.inst.tokens.Record(ctx, int64(u.InputTokens), genaiconv.OperationNameChat, s.provider, genaiconv.TokenTypeInput, metricAttrs...)
		s.t.inst.tokens.Record(ctx, int64(u.OutputTokens), genaiconv.OperationNameChat, s.provider, genaiconv.TokenTypeOutput, metricAttrs...)
		if s.t.pricer != nil {
			spend := providers.NewSpend(s.t.pricer)
			spend.Add(r.Model, u) // priced as the budget and /cost price it: by the model asked for
			if usd, priced := spend.Cost(); priced {
				s.t.inst.cost.Add(ctx, usd, metric.WithAttributes(semconv.GenAIRequestModel(r.Model), semconv.GenAIResponseModel(model),
					semconv.GenAIProviderNameKey.String(string(s.provider)), AttrFrontend.String(s.frontend)))
			}
		}
		rec := s.record("gen_ai.client.inference.operation.details", otellog.SeverityInfo, r.Session, r.Model)
		rec.AddAttributes(attribute.String(string(semconv.GenAIResponseModelKey), model),
			attribute.Int(string(semconv.GenAIUsageInputTokensKey), u.InputTokens),
			attribute.Int(string(semconv.GenAIUsageOutputTokensKey), u.OutputTokens),
			attribute.String(string(semconv.GenAIResponseFinishReasonsKey), string(e.Response.FinishReason)))
		if e.Err != nil {
			rec.SetSeverity(otellog.SeverityError)
			rec.AddAttributes(attribute.String("error.message", captured(e.Err.Error())))
		}
		if s.t.capture {
			rec.SetBody(attribute.StringValue(messagesJSON([]providers.Message{e.Response.Message}, e.Response.FinishReason)))
		}
		s.t.logger.Emit(ctx, rec)
		span.End()
	}
}

// unknownTool stands for the name of a tool that does not exist in span
// names and metrics, which would otherwise take any name a model invents.
const unknownTool = "_unknown"

// ToolCall starts execute_tool {tool}; the gate (PreToolUse hooks), the
// approval, the tool (a subagent's loop, a command, an MCP server's call)
// and its PostToolUse hooks run in its context.
func (s *sessionTracer) ToolCall(ctx context.Context, c loop.TraceCall) (context.Context, func(loop.TraceCallEnd)) {
	toolType, name := "function", c.Call.Name
	if strings.HasPrefix(name, "mcp__") {
		toolType = "extension" // an MCP server's tool
	}
	if !c.Known { // a name the model made up is its words (content), and no name for a span or a metric
		name = unknownTool
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(name), semconv.GenAIToolCallID(c.Call.ID),
		semconv.GenAIToolTypeKey.String(toolType), AttrFrontend.String(s.frontend),
	}
	if c.Session != "" {
		attrs = append(attrs, semconv.GenAIConversationID(c.Session))
	}
	if s.t.capture {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(captured(c.Call.Arguments)))
	}
	ctx, span := s.t.tracer.Start(ctx, "execute_tool "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, func(e loop.TraceCallEnd) {
		decision := "allowed"
		if e.Denied {
			decision = "denied"
		}
		end := []attribute.KeyValue{AttrDecision.String(decision), AttrApprovalWait.Int64(e.Waited.Milliseconds())}
		if e.Why != "" {
			end = append(end, AttrDecidedBy.String(e.Why))
		}
		if s.t.capture {
			end = append(end, semconv.GenAIToolCallResultKey.String(captured(e.Result.Content)))
		}
		span.SetAttributes(end...)
		if e.Result.IsError {
			span.SetStatus(codes.Error, "the tool call failed or was denied")
		}
		s.t.inst.toolCalls.Add(ctx, 1, metric.WithAttributes(semconv.GenAIToolName(name), AttrDecision.String(decision), AttrFrontend.String(s.frontend)))
		rec := s.record("agent.tool.decision", otellog.SeverityInfo, c.Session, "")
		rec.AddAttributes(attribute.String(string(semconv.GenAIToolNameKey), name), attribute.String(string(semconv.GenAIToolCallIDKey), c.Call.ID),
			attribute.String(string(AttrDecision), decision), attribute.String(string(AttrDecidedBy), e.Why),
			attribute.Int64(string(AttrApprovalWait), e.Waited.Milliseconds()))
		s.t.logger.Emit(ctx, rec)
		span.End()
	}
}

// record is a log record of event for a session's model.
func (s *sessionTracer) record(event string, sev otellog.Severity, session, model string) otellog.Record {
	var rec otellog.Record
	rec.SetEventName(event)
	rec.SetTimestamp(time.Now())
	rec.SetSeverity(sev)
	rec.AddAttributes(attribute.String(string(AttrFrontend), s.frontend), attribute.String(string(semconv.GenAIProviderNameKey), string(s.provider)))
	if session != "" {
		rec.AddAttributes(attribute.String(string(semconv.GenAIConversationIDKey), session))
	}
	if model != "" {
		rec.AddAttributes(attribute.String(string(semconv.GenAIRequestModelKey), model))
	}
	return rec
}

// Hook starts execute_hook {event} for the hooks of event that run; the
// commands get its TRACEPARENT. A nil t gives ctx and a no-op end.
func (t *Telemetry) Hook(ctx context.Context, event string, commands int) (context.Context, func(failed int)) {
	if t == nil {
		return ctx, func(int) {}
	}
	ctx, span := t.tracer.Start(t.Context(ctx), "execute_hook "+event,
		trace.WithAttributes(attribute.String("agent.hook.event", event), attribute.Int("agent.hook.commands", commands)))
	return ctx, func(failed int) {
		if failed > 0 {
			span.SetStatus(codes.Error, "a hook failed")
			span.SetAttributes(attribute.Int("agent.hook.failed", failed))
		}
		span.End()
	}
}
