package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// prepared is a tool call after name resolution and argument validation.
type prepared struct {
	call providers.ToolCall
	tool tools.Tool // nil when the call failed to resolve
	args json.RawMessage
	// fail is the error result for a call that cannot run.
	fail string
}

// parallel reports whether the call may run beside other calls: it resolved
// to a read-only tool other than pick_tools (which changes the toolset).
func (p prepared) parallel() bool {
	return p.tool != nil && p.fail == "" && p.tool.Definition().ReadOnly && p.call.Name != picker.PickToolsName
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
	preps := make([]prepared, len(calls))
	for i, c := range calls {
		tool, args, err := cat.Resolve(c.Name, c.Arguments, t.conv)
		preps[i] = prepared{call: c, tool: tool, args: args}
		if err != nil {
			preps[i].fail = err.Error()
		}
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
	if err == nil {
		err = t.storeErr.get()
	}
	return err
}

// runBatch runs preps concurrently (a batch of one runs alone) and writes
// each result to the same index of results.
func (t *turn) runBatch(preps []prepared, results []providers.ToolResult) {
	for _, p := range preps {
		t.emit(ToolCallStarted{ID: p.call.ID, Name: p.call.Name, Arguments: p.call.Arguments})
	}
	var g errgroup.Group
	g.SetLimit(t.cfg.Parallel)
	for i, p := range preps {
		g.Go(func() error {
			start := t.cfg.Now()
			t.storeCall(func(s Store, ctx context.Context) error { return s.StartToolCall(ctx, p.call, start) })
			res, waited := t.runOne(p)
			results[i] = providers.ToolResult{CallID: p.call.ID, Name: p.call.Name, Content: res.Content, IsError: res.IsError, References: res.References}
			end := t.cfg.Now()
			t.storeCall(func(s Store, ctx context.Context) error { return s.FinishToolCall(ctx, p.call, results[i], start, end) })
			t.emit(ToolCallFinished{
				ID: p.call.ID, Name: p.call.Name, Content: res.Content, IsError: res.IsError,
				Meta: res.Meta, Duration: max(end.Sub(start)-waited, 0), Waited: waited,
			})
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

// runOne runs one call, asking for approval first when the tool is not
// read-only. The decision is recorded in the store, with how long
// Config.Approve took (waited, also returned: the time a person took to
// answer is not the tool's run time), and, when it says why, in the
// result's Meta["decision"]. It never fails: every problem becomes an error
// result.
func (t *turn) runOne(p prepared) (_ tools.Result, waited time.Duration) {
	if p.fail != "" {
		return tools.Result{Content: p.fail, IsError: true}, 0
	}
	if t.ctx.Err() != nil {
		return tools.Result{Content: "cancelled by the user before it ran", IsError: true}, 0
	}
	def := p.tool.Definition()
	if !def.ReadOnly && t.cfg.Approve != nil {
		req := Approval{Call: p.call, Def: def}
		if pv, ok := p.tool.(tools.Previewer); ok {
			res, err := pv.Preview(t.ctx, p.args)
			if err != nil {
				res = tools.Result{Content: fmt.Sprintf("%s failed: %v", def.Name, err), IsError: true}
			}
			if res.IsError {
				return res, 0 // the call would fail: no question to ask
			}
			req.Preview = &res
		}
		asked := t.cfg.Now()
		d := t.cfg.Approve(t.ctx, req)
		waited = t.cfg.Now().Sub(asked)
		t.storeCall(func(s Store, ctx context.Context) error { return s.DecideToolCall(ctx, p.call, d.Allow, d.Why, waited) })
		if !d.Allow {
			reason := d.Reason
			if reason == "" {
				reason = fmt.Sprintf("the user did not allow this %s call", def.Name)
			}
			return withDecision(tools.Result{Content: reason, IsError: true, Meta: map[string]any{"denied": true}}, d.Why), waited
		}
		return withDecision(t.runTool(p), d.Why), waited
	}
	return t.runTool(p), 0
}

// runTool runs a call that needs no approval or was allowed.
func (t *turn) runTool(p prepared) tools.Result {
	res, err := p.tool.Run(t.ctx, p.args)
	if err != nil {
		if t.ctx.Err() != nil {
			return tools.Result{Content: "cancelled by the user", IsError: true}
		}
		return tools.Result{Content: fmt.Sprintf("%s failed: %v", p.tool.Definition().Name, err), IsError: true}
	}
	return res
}

// withDecision returns res with why in Meta["decision"], when why is not
// empty. The tool's Meta map is copied, never written to.
func withDecision(res tools.Result, why string) tools.Result {
	if why == "" {
		return res
	}
	meta := maps.Clone(res.Meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["decision"] = why
	res.Meta = meta
	return res
}
