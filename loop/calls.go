package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// prepared is a tool call after name resolution and argument validation.
type prepared struct {
	call providers.ToolCall
	tool tools.Tool // nil when the call failed to resolve
	args json.RawMessage
	// fail is the error result for a call that cannot run.
	fail string
	// gate is what the gate said of the call; why who decided there.
	gate GateVerdict
	why  string
	// resolve validates arguments of the call's tool (the step's catalog).
	resolve func(name, args string) (tools.Tool, json.RawMessage, error)
	// ctx is the context the call is gated, approved and runs in: the
	// turn's, or the one its Tracer gave it; traced reports its end to the
	// Tracer, once.
	ctx    context.Context
	traced func(res tools.Result, ran, waited time.Duration)
}

// parallel reports whether the call may run beside other calls: it resolved
// to a read-only tool that does not change the toolset (pick_tools), and no
// person is to be asked about it.
func (p prepared) parallel() bool {
	if p.tool == nil || p.fail != "" || p.gate == GateAsk {
		return false
	}
	def := p.tool.Definition()
	return def.ReadOnly && !def.ChangesToolset
}

// started is the event of a call that begins: its arguments as the model
// wrote them (or the gate replaced them) and how front-ends show it.
func (p prepared) started() ToolCallStarted {
	ev := ToolCallStarted{ID: p.call.ID, Name: p.call.Name, Arguments: p.call.Arguments, Kind: tools.KindOther}
	if p.tool != nil {
		def := p.tool.Definition()
		ev.Summary, ev.Kind, ev.Effects, ev.Toolset = def.Summary(p.call.Arguments), def.KindOrOther(), def.Effects, def.ChangesToolset
	} else {
		ev.Summary = tools.DefaultSummary(p.call.Arguments)
	}
	return ev
}

// runCalls runs the tool calls of one step and appends one tool message per
// call to the conversation, in call order. Consecutive calls that only read
// run concurrently; every other call runs alone, in order. After
// cancellation, calls that did not run are answered with "cancelled by the
// user". The error is a failure to record the calls: every result is
// appended all the same, as far as the conversation takes them.
func (t *turn) runCalls(calls []providers.ToolCall) error {
	cat := t.catalog() // one snapshot for the whole step
	before := cat.Full(t.conv.Picked())
	resolve := func(name, args string) (tools.Tool, json.RawMessage, error) { return cat.Resolve(name, args, t.conv) }
	preps := make([]prepared, len(calls))
	for i, c := range calls {
		tool, args, err := resolve(c.Name, c.Arguments)
		preps[i] = prepared{call: c, tool: tool, args: args, resolve: resolve}
		if err != nil {
			preps[i].fail = err.Error()
		}
	}
	t.passToolGate(preps)
	for i := range preps {
		preps[i] = t.traceCall(preps[i]) // its span covers its PreToolUse hooks too
		preps[i].gate = t.gate(&preps[i], resolve)
	}
	results := make([]providers.ToolResult, len(calls))
	for i := 0; i < len(preps); {
		j := i + 1
		if preps[i].parallel() {
			for j < len(preps) && preps[j].parallel() {
				j++
			}
		}
		t.runBatch(preps[i:j], results[i:j])
		i = j
	}
	t.toolCalls += len(calls)
	if after := cat.Full(t.conv.Picked()); !slices.Equal(before, after) {
		var added []string
		for _, n := range after {
			if !slices.Contains(before, n) {
				added = append(added, n)
			}
		}
		t.emit(ToolsetChanged{Picked: after, Added: added})
	}
	var err error
	for _, r := range results {
		m := providers.Message{Role: providers.RoleTool, Parts: []providers.Part{r}}
		if rerr := t.record(m, providers.Usage{}); rerr != nil && err == nil {
			err = rerr
		}
	}
	// Fast calls' records joined the results' write (CallStore); one the
	// store still holds, or could not write, is written or reported now.
	if f, ok := t.cfg.Store.(Flusher); ok {
		if ferr := f.Flush(context.WithoutCancel(t.ctx)); ferr != nil {
			t.storeErr.set(fmt.Errorf("saving a tool call: %w", ferr))
		}
	}
	if err == nil {
		err = t.storeErr.get()
	}
	return err
}

// runBatch runs preps concurrently (a batch of one runs alone) and writes
// each result to the same index of results. A batch of one runs on the
// turn's goroutine: a new one would start with a small stack and grow it
// again, copying it each time (3.6% of a five-step -p run's CPU went to
// stack growth; BENCHMARKS.md, "Issue 43, a fifth pass").
func (t *turn) runBatch(preps []prepared, results []providers.ToolResult) {
	for _, p := range preps {
		t.emit(p.started())
	}
	run := func(i int, p prepared) {
		start := t.cfg.Now()
		rec := t.beginCall(p.call, start)
		res, waited := t.runOne(p, rec)
		results[i] = providers.ToolResult{CallID: p.call.ID, Name: p.call.Name, Content: res.Content, IsError: res.IsError,
			Images: images(res.Images), References: res.References}
		end := t.cfg.Now()
		p.traced(res, max(end.Sub(start)-waited, 0), waited)
		rec.finish(results[i], end)
		ev := p.started()
		t.emit(ToolCallFinished{
			ID: p.call.ID, Name: p.call.Name, Content: res.Content, IsError: res.IsError, Images: len(res.Images),
			Meta: res.Meta, Duration: max(end.Sub(start)-waited, 0), Waited: waited,
			Kind: ev.Kind, Effects: ev.Effects, Toolset: ev.Toolset,
		})
	}
	if len(preps) == 1 {
		run(0, preps[0])
		return
	}
	var g errgroup.Group
	g.SetLimit(t.cfg.Parallel)
	for i, p := range preps {
		g.Go(func() error {
			run(i, p)
			return nil
		})
	}
	_ = g.Wait() // runOne turns every failure into a result
}

// storeCall runs a tool-call write when the loop has a store, keeping the
// first failure for runCalls to report. Calls of one batch write
// concurrently; the store serialises them.
func (t *turn) storeCall(write func(Store, context.Context) error) {
	if t.cfg.Store == nil {
		return
	}
	if err := write(t.cfg.Store, context.WithoutCancel(t.ctx)); err != nil {
		t.storeErr.set(fmt.Errorf("saving a tool call: %w", err))
	}
}

// runOne runs one call, asking for approval first (every call: the
// approval applies the user's deny rules to read-only tools too, and lets
// them run otherwise). The decision is recorded through rec when it says
// something (a call that changes the world, a denial, a reason), with how
// long Config.Approve took (waited, also returned: the time a person took
// to answer is not the tool's run time), and, when it says why, in the
// result's Meta[tools.MetaDecision]. It never fails: every problem becomes an
// error result.
func (t *turn) runOne(p prepared, rec *callRecord) (_ tools.Result, waited time.Duration) {
	if p.fail != "" {
		res := tools.Result{Content: p.fail, IsError: true}
		if p.gate == GateDeny {
			res = withDecision(tools.Result{Content: p.fail, IsError: true, Meta: map[string]any{tools.MetaDenied: true}}, p.why)
		}
		return res, 0
	}
	if t.ctx.Err() != nil {
		return tools.Result{Content: "cancelled by the user before it ran", IsError: true}, 0
	}
	if t.cfg.Approve == nil {
		return t.afterCall(p, t.runTool(p)), 0
	}
	def := p.tool.Definition()
	req := Approval{Call: p.call, Def: def, Gate: p.gate, GateWhy: p.why, Origin: t.cfg.Origin, Session: t.conv.SessionID()}
	if pv, ok := p.tool.(tools.Previewer); ok && !def.ReadOnly {
		res, err := pv.Preview(p.ctx, t.toolCall(p))
		if err != nil {
			res = tools.Result{Content: fmt.Sprintf("%s failed: %v", def.Name, err), IsError: true}
		}
		if res.IsError {
			return res, 0 // the call would fail: no question to ask
		}
		req.Preview = &res
	}
	asked := t.cfg.Now()
	d := t.cfg.Approve(p.ctx, req)
	waited = t.cfg.Now().Sub(asked)
	if !def.ReadOnly || !d.Allow || d.Why != "" {
		rec.decide(d.Allow, d.Why, waited)
	}
	if !d.Allow {
		reason := d.Reason
		if reason == "" {
			reason = fmt.Sprintf("the user did not allow this %s call", def.Name)
		}
		return withDecision(tools.Result{Content: reason, IsError: true, Meta: map[string]any{tools.MetaDenied: true}}, d.Why), waited
	}
	if d.Args != nil {
		var ok bool
		if p, ok = p.replaceArgs(d.Args); !ok {
			return withDecision(tools.Result{Content: p.fail, IsError: true}, d.Why), waited
		}
	}
	return withDecision(t.afterCall(p, t.runTool(p)), d.Why), waited
}

// replaceArgs is p with args, the approval's, as its arguments once they
// are valid for its tool; otherwise ok is false and fail says why.
func (p prepared) replaceArgs(args json.RawMessage) (_ prepared, ok bool) {
	_, valid, err := p.resolve(p.call.Name, string(args))
	if err != nil {
		p.fail = "the call was allowed with other arguments, which are not valid: " + err.Error()
		return p, false
	}
	p.args, p.call.Arguments = valid, string(valid)
	return p, true
}

// toolCall is what the tool of p learns of its call: its id, the session,
// the arguments and where its progress goes (a ToolProgress event).
func (t *turn) toolCall(p prepared) tools.Call {
	return tools.Call{ID: p.call.ID, Session: t.conv.SessionID(), Args: p.args, Progress: func(pr tools.Progress) {
		t.progress(p.call, pr)
	}}
}

// runTool runs a call that was allowed. Progress the tool reports after
// it returned is dropped: its ToolCallFinished follows.
func (t *turn) runTool(p prepared) tools.Result {
	call := t.toolCall(p)
	var mu sync.Mutex
	running := true
	report := call.Progress
	call.Progress = func(pr tools.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if running {
			report(pr)
		}
	}
	defer func() {
		mu.Lock()
		running = false
		mu.Unlock()
	}()
	res, err := p.tool.Run(p.ctx, call)
	if err != nil {
		if t.ctx.Err() != nil {
			return tools.Result{Content: "cancelled by the user", IsError: true}
		}
		return tools.Result{Content: fmt.Sprintf("%s failed: %v", p.tool.Definition().Name, err), IsError: true}
	}
	return res
}

// progress reports a running call's progress.
func (t *turn) progress(c providers.ToolCall, p tools.Progress) {
	t.emit(ToolProgress{ID: c.ID, Name: c.Name, Text: p.Text, Detail: p.Detail})
}

// images converts a tool result's images to the conversation's.
func images(in []tools.Image) []providers.Image {
	if len(in) == 0 {
		return nil
	}
	out := make([]providers.Image, len(in))
	for i, img := range in {
		out[i] = providers.Image{MediaType: img.MediaType, Data: img.Data}
	}
	return out
}

// withDecision returns res with why in Meta[tools.MetaDecision], when why is not
// empty. The tool's Meta map is copied, never written to.
func withDecision(res tools.Result, why string) tools.Result {
	if why == "" {
		return res
	}
	meta := maps.Clone(res.Meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[tools.MetaDecision] = why
	res.Meta = meta
	return res
}
