package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sdkstream"
	"github.com/agent-dev/agent/tools"
)

// Output formats of headless mode.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// printer renders a turn's events for scripts. In text mode stdout gets the
// final answer only and stderr one line per tool call when progress is on;
// json prints one object at the end; stream-json prints one object per
// event, as it happens, and the result object last.
type printer struct {
	format   string
	out      io.Writer
	errOut   io.Writer
	progress bool
	enc      *json.Encoder
	calls    []toolCallRecord
	started  map[string]int // tool call id -> index in calls
	changed  []string       // files changed by edit tools, in order, once each
	// pricer prices the turn's models (the session's and its subagents',
	// each at its own price); nil, or a session model without a price,
	// leaves the costs out. sessionSpend is the session's spend after the
	// turn, its subagents' included, set before finish.
	pricer       providers.Pricer
	sessionSpend *providers.Spend
	// children is what the turn's subagents used, by each child's model
	// (childModels, by the task call's id); nil before the first child.
	children    *providers.Spend
	childModels map[string]string
	// childCounted are the children whose requests' usage was counted
	// (loop.Usage, at the model that answered); a child without is
	// counted at its Done.
	childCounted map[string]bool
	// models is what the turn's own requests used, by the model that
	// answered them (a fallback's apart, see loop.FellBack).
	models map[string]providers.Usage
	// citations are the pages the turn's answers cited, each once.
	citations []loop.Citation
	// schema is true when the answer must match --json-schema: in text
	// mode stdout then gets the answer's value alone, and an answer
	// without one goes to stderr.
	schema bool
}

// toolCallRecord is one tool call in the json result.
type toolCallRecord struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	IsError    bool            `json:"is_error"`
	DurationMS int64           `json:"duration_ms"`
}

// resultObject is the final object of json and stream-json output.
type resultObject struct {
	Type string `json:"type"`
	// Subtype and IsError say how the turn ended in the Claude Agent
	// SDK's names (success, error_max_turns, error_max_budget_usd,
	// error_max_structured_output_retries, error_during_execution).
	Subtype    string          `json:"subtype"`
	IsError    bool            `json:"is_error"`
	Answer     string          `json:"answer"`
	StopReason loop.StopReason `json:"stop_reason"`
	// StructuredOutput is the answer's value when it matched
	// --json-schema; omitted otherwise.
	StructuredOutput json.RawMessage  `json:"structured_output,omitempty"`
	Error            string           `json:"error,omitempty"`
	SessionID        string           `json:"session_id"`
	Model            string           `json:"model"`
	Steps            int              `json:"steps"`
	ToolCalls        []toolCallRecord `json:"tool_calls"`
	Usage            providers.Usage  `json:"usage"`
	// SubagentUsage is the tokens of the turn's subagents, beside Usage
	// (the parent's own); omitted when none ran.
	SubagentUsage *providers.Usage `json:"subagent_usage,omitempty"`
	DurationMS    int64            `json:"duration_ms"`
	// CostUSD is the turn's cost and SessionCostUSD the session's so far,
	// in US dollars; both are left out for a model without a price.
	CostUSD        *float64 `json:"cost_usd,omitempty"`
	SessionCostUSD *float64 `json:"session_cost_usd,omitempty"`
	// Citations are the pages the turn's answers cited after a web
	// search, each once, in order; omitted when none.
	Citations []citationObject `json:"citations,omitempty"`
}

func newPrinter(format string, out, errOut io.Writer, progress bool) *printer {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // "&&" reads as itself, not \u0026\u0026
	return &printer{format: format, out: out, errOut: errOut, progress: progress, enc: enc, started: map[string]int{}}
}

// init emits the stream-json header object.
func (p *printer) init(sessionID, model, dir, toolsMode string, tools []string) error {
	if p.format != formatStreamJSON {
		return nil
	}
	return p.enc.Encode(map[string]any{
		"type": "init", "session_id": sessionID, "model": model, "cwd": dir,
		"tools_mode": toolsMode, "tools": tools,
	})
}

// event renders one loop event.
func (p *printer) event(ev loop.Event) error {
	switch ev := ev.(type) {
	case loop.ToolCallStarted:
		p.started[ev.ID] = len(p.calls)
		p.calls = append(p.calls, toolCallRecord{ID: ev.ID, Name: ev.Name, Arguments: rawArgs(ev.Arguments)})
	case loop.Notice:
		if p.progress && p.format == formatText {
			fmt.Fprintf(p.errOut, "· %s\n", ev.Text)
		}
	case loop.ToolCallFinished:
		if path, ok := ev.Meta[tools.MetaPath].(string); ok && !ev.IsError && host.IsEdit(tools.Definition{Effects: ev.Effects}) && !slices.Contains(p.changed, path) {
			p.changed = append(p.changed, path)
		}
		if i, ok := p.started[ev.ID]; ok {
			p.calls[i].IsError, p.calls[i].DurationMS = ev.IsError, ev.Duration.Milliseconds()
			if p.progress && p.format == formatText {
				c := p.calls[i]
				status := "ok"
				if ev.IsError {
					status = "error: " + firstLine(ev.Content)
				}
				fmt.Fprintf(p.errOut, "· %s %s (%s, %s)\n", c.Name, summarize(c.Arguments), status, roundDuration(ev.Duration))
			}
		}
	case loop.ToolProgress:
		if se, ok := ev.Detail.(loop.ChildEvent); ok {
			p.subagentProgress(se)
		}
	case loop.Usage:
		if p.models == nil {
			p.models = map[string]providers.Usage{}
		}
		p.models[ev.Model] = p.models[ev.Model].Add(ev.Usage)
	case loop.FellBack:
		if p.progress && p.format == formatText {
			discarded := ""
			if ev.Discarded {
				discarded = " (the partial answer is discarded)"
			}
			fmt.Fprintf(p.errOut, "· %s failed after its retries (%s): this turn goes on with %s%s\n", ev.From, ev.Err, ev.To, discarded)
		}
	case loop.Retry:
		if p.progress && p.format == formatText {
			discarded := ""
			if ev.Discarded {
				discarded = " (the partial answer is discarded)"
			}
			fmt.Fprintf(p.errOut, "· retry %d/%d in %s: %s%s\n", ev.Attempt, ev.Max, roundDuration(ev.Delay), ev.Err, discarded)
		}
	case loop.Compacted:
		if p.progress && p.format == formatText {
			fmt.Fprintf(p.errOut, "· compacted the conversation: about %d → %d tokens\n", ev.BeforeTokens, ev.AfterTokens)
		}
	case loop.WebSearch, loop.Citation:
		p.webEvent(ev)
	}
	if p.format == formatStreamJSON {
		if obj := streamObject(ev); obj != nil {
			if err := p.enc.Encode(obj); err != nil {
				return err
			}
		}
		if obj := todoObject(ev); obj != nil {
			return p.enc.Encode(obj)
		}
	}
	return nil
}

// finish renders the end of the turn.
func (p *printer) finish(done loop.Done, sessionID, model string) error {
	switch p.format {
	case formatJSON, formatStreamJSON:
		res := resultObject{
			Type: "result", Subtype: sdkstream.Subtype(done.Reason), Answer: done.Answer, StopReason: done.Reason,
			StructuredOutput: done.Structured, SessionID: sessionID, Model: model,
			Steps: done.Steps, ToolCalls: p.calls, Usage: done.Usage, DurationMS: done.Duration.Milliseconds(),
		}
		res.IsError = res.Subtype != sdkstream.SubtypeSuccess
		if res.ToolCalls == nil {
			res.ToolCalls = []toolCallRecord{}
		}
		if done.Err != nil {
			res.Error = done.Err.Error()
		}
		spend := providers.NewSpend(p.pricer)
		if len(p.models) == 0 {
			spend.Add(model, done.Usage)
		}
		for m, u := range p.models {
			spend.Add(m, u)
		}
		if p.children != nil {
			if u := p.children.Usage(); u != (providers.Usage{}) {
				res.SubagentUsage = &u
			}
			for name, m := range p.children.Models() {
				spend.Add(name, m.Usage)
			}
		}
		if p.costed(model) {
			turn, _ := spend.Cost()
			session := turn
			if p.sessionSpend != nil {
				session, _ = p.sessionSpend.Cost()
			}
			res.CostUSD, res.SessionCostUSD = &turn, &session
		}
		res.Citations = citationObjects(p.citations)
		return p.enc.Encode(res)
	}
	if p.progress && len(p.changed) > 0 {
		fmt.Fprintf(p.errOut, "· changed files: %s\n", strings.Join(p.changed, ", "))
	}
	switch {
	case done.Structured != nil:
		_, err := fmt.Fprintf(p.out, "%s\n", done.Structured)
		return err
	case done.Answer == "":
		return nil
	case p.schema:
		// Not the value: stdout is kept for it.
		_, err := fmt.Fprintln(p.errOut, strings.TrimRight(done.Answer, "\n"))
		return err
	}
	_, err := fmt.Fprintln(p.out, strings.TrimRight(done.Answer, "\n")+sourcesText(p.citations))
	return err
}

// streamObject is the stream-json form of a loop event (nil for Done, whose
// form is the result object). The README documents this schema.
func streamObject(ev loop.Event) map[string]any {
	switch ev := ev.(type) {
	case loop.StepStarted:
		return map[string]any{"type": "step_started", "step": ev.Step}
	case loop.TextDelta:
		return map[string]any{"type": "text_delta", "text": ev.Text}
	case loop.ReasoningDelta:
		return map[string]any{"type": "reasoning_delta", "text": ev.Text}
	case loop.ToolCallStarted:
		return map[string]any{"type": "tool_call_started", "id": ev.ID, "name": ev.Name, "arguments": rawArgs(ev.Arguments)}
	case loop.ToolCallFinished:
		obj := map[string]any{"type": "tool_call_finished", "id": ev.ID, "name": ev.Name, "is_error": ev.IsError,
			"content": ev.Content, "duration_ms": ev.Duration.Milliseconds()}
		if len(ev.Meta) > 0 {
			obj["meta"] = ev.Meta
		}
		return obj
	case loop.ToolProgress:
		if se, ok := ev.Detail.(loop.ChildEvent); ok {
			return subagentObject(se)
		}
		return map[string]any{"type": "tool_progress", "id": ev.ID, "name": ev.Name, "text": ev.Text}
	case loop.Notice:
		return map[string]any{"type": "notice", "source": ev.Source, "text": ev.Text}
	case loop.ToolsetChanged:
		return map[string]any{"type": "toolset_changed", "picked": nonNil(ev.Picked), "added": nonNil(ev.Added)}
	case loop.Retry:
		return map[string]any{"type": "retry", "attempt": ev.Attempt, "max": ev.Max, "delay_ms": ev.Delay.Milliseconds(), "error": ev.Err,
			"discarded": ev.Discarded}
	case loop.Usage:
		return map[string]any{"type": "usage", "step": ev.Step, "usage": ev.Usage, "total": ev.Total, "model": ev.Model}
	case loop.FellBack:
		return map[string]any{"type": "fallback", "from": ev.From, "to": ev.To, "error": ev.Err, "discarded": ev.Discarded}
	case loop.Compacted:
		return map[string]any{"type": "compaction", "before_tokens": ev.BeforeTokens, "after_tokens": ev.AfterTokens,
			"summary": ev.Summary, "auto": ev.Auto}
	case loop.WebSearch, loop.Citation:
		return webObject(ev)
	}
	return nil
}

// rawArgs returns the model's argument text as JSON: itself when valid,
// else as a JSON string.
func rawArgs(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(readableJSON(args))
	}
	var b bytes.Buffer
	_ = encodeJSON(&b, args) // a string always encodes
	return bytes.TrimSpace(b.Bytes())
}

// summarize shows a tool call's arguments in one short line: the values of
// a JSON object, the first ones first, each cut at 60 characters.
func summarize(args json.RawMessage) string {
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return cut(string(args), 80)
	}
	var parts []string
	for _, key := range []string{"command", "pattern", "path", "names", "glob"} {
		if v, ok := obj[key]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", key, cut(fmt.Sprint(v), 60)))
		}
	}
	return strings.Join(parts, " ")
}

func cut(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return cut(line, 100)
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stopsWithPlan reports whether ev is the end of an exit_plan_mode call
// that ends a headless run, and its plan.
func stopsWithPlan(ev loop.Event) (string, bool) {
	f, ok := ev.(loop.ToolCallFinished)
	if !ok || f.Meta[tools.MetaStop] != true {
		return "", false
	}
	text, ok := f.Meta[tools.MetaPlan].(string)
	return text, ok
}

// todoObject is the stream-json todo event after a todo_write call: the
// whole list; nil for other events.
func todoObject(ev loop.Event) map[string]any {
	f, ok := ev.(loop.ToolCallFinished)
	if !ok || f.IsError {
		return nil
	}
	items, ok := tools.Todos(f.Meta)
	if !ok {
		return nil
	}
	return map[string]any{"type": "todo", "id": f.ID, "todos": items}
}
