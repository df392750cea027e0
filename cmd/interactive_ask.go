package cmd

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/plan"
	"github.com/agent-dev/agent/tui"
)

// tuiAsker asks the person in the interface: the call's block shows the
// question as a menu.
type tuiAsker struct {
	approver *tui.Approver
	host     *host.Host // where "always" answers about domains are kept
}

var _ host.Asker = tuiAsker{}

// Ask puts q to the person.
func (t tuiAsker) Ask(ctx context.Context, q host.Question) loop.Decision {
	tq := tui.Question{Call: q.Req.Call, Group: q.Def.Name, Recheck: q.Recheck, Origin: q.Req.Origin.Label,
		Summary: q.Def.Summary(q.Req.Call.Arguments), Commands: q.Def.Effects.Has(tools.RunsCommands)}
	if q.Risk != "" {
		// One call's question: no answer for the session covers another.
		tq.Group, tq.Warning, tq.Recheck = "protected "+q.Req.Call.ID, host.ProtectedQuestion(q.Rel, q.Risk), nil
		tq.Diff, _ = q.Req.Preview.Meta[tools.MetaDiff].(string)
		return t.approver.Ask(ctx, tq)
	}
	if hosts := q.Def.Summary(q.Req.Call.Arguments).Hosts; q.Def.Effects.Has(tools.ReachesNetwork) && len(hosts) > 0 {
		return askHosts(ctx, t.approver, t.host, tq, hosts)
	}
	if host.IsEdit(q.Def) {
		tq.Group = "edits" // allowing one edit tool for the session allows both
		if q.Req.Preview != nil {
			tq.Diff, _ = q.Req.Preview.Meta[tools.MetaDiff].(string)
		}
	}
	return t.approver.Ask(ctx, tq)
}

// trustAsk asks the person whether to trust what a repository would run.
func trustAsk(approver *tui.Approver) func(ctx context.Context, call providers.ToolCall, question string) (bool, bool) {
	return func(ctx context.Context, call providers.ToolCall, question string) (bool, bool) {
		d := approver.Ask(ctx, tui.Question{Call: call, Text: question})
		return d.Allow, d.Why != tui.WhyDismissed
	}
}

// askHosts asks the person about a call that reaches a domain: "for the
// session" covers that domain, and "always" is remembered in h's trust store (then
// Why names the domain).
func askHosts(ctx context.Context, ap *tui.Approver, h *host.Host, tq tui.Question, hosts []string) loop.Decision {
	domain := strings.Join(hosts, ", ")
	tq.Group = tq.Call.Name + " " + domain
	tq.SessionLabel = "Allow " + domain + " for this session"
	if h.CanRemember() && len(hosts) == 1 {
		tq.Always = "Always allow " + domain
	}
	d := ap.Ask(ctx, tq)
	if d.Why == tui.WhyAlways {
		d.Why = "person: always for " + domain
		if err := h.RememberDomain(hosts[0]); err != nil {
			d.Why += " (not remembered: " + err.Error() + ")"
		}
	}
	return d
}

// tuiPlan asks the person about a plan in the interface: approve and go on
// in ask or in auto mode, or keep planning with what they type.
type tuiPlan struct{ approver *tui.Approver }

func (t tuiPlan) decide(ctx context.Context, callID, text string) (plan.Outcome, error) {
	d := t.approver.Ask(ctx, tui.Question{Call: providers.ToolCall{ID: callID, Name: plan.Name}, Plan: true,
		Summary: tools.Summary{Title: "the plan", Full: text}})
	if ctx.Err() != nil {
		return plan.Outcome{}, ctx.Err()
	}
	switch {
	case d.Allow && d.Why == tui.WhyPlanAuto:
		return plan.Outcome{Approved: true, Mode: host.ModeAuto}, nil
	case d.Allow:
		return plan.Outcome{Approved: true, Mode: host.ModeAsk}, nil
	}
	return plan.Outcome{Feedback: d.Reason}, nil
}

// tuiElicit asks the person an MCP server's form in the interface: one
// question listing the fields (type, whether required, default); its
// answers accept the defaults, take typed values (NAME=VALUE; ..., or a
// lone field's value), or decline; Esc cancels. A server's page to open
// (URL mode) is a question showing the URL whole and its host: open it
// (accept: the host opens it) or decline.
func tuiElicit(approver *tui.Approver) mcp.ElicitFunc {
	var n atomic.Int64
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		id := fmt.Sprintf("elicitation-%d", n.Add(1))
		call := providers.ToolCall{ID: id, Name: "mcp__" + e.Server, Arguments: "{}"}
		if e.URL != "" {
			return elicitLink(ctx, approver, call, e)
		}
		d := approver.Ask(ctx, tui.Question{Call: call, Group: id, Form: true, Text: formText(e),
			Summary: tools.Summary{Title: e.Server + " asks", Full: e.Message}})
		if ans, refused, err := refusal(ctx, d); refused {
			return ans, err
		}
		return mcp.ElicitAnswer{Action: mcp.ElicitAccept, Values: formValues(e.Fields, d.Reason)}, nil
	}
}

// formText is a form's question: the server's message, then a line per
// field.
func formText(e mcp.Elicitation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server %s asks: %s", e.Server, strings.TrimSpace(e.Message))
	for _, f := range e.Fields {
		b.WriteString("\n  " + f.Name)
		var about []string
		if f.Type != "" {
			about = append(about, f.Type)
		}
		if f.Required {
			about = append(about, "required")
		}
		if len(f.Enum) > 0 {
			about = append(about, "one of "+strings.Join(f.Enum, ", "))
		}
		if f.Default != nil {
			about = append(about, fmt.Sprintf("default %v", f.Default))
		}
		if len(about) > 0 {
			b.WriteString(" (" + strings.Join(about, "; ") + ")")
		}
		if d := f.Description; d != "" {
			b.WriteString(": " + tools.OneLine(d))
		} else if f.Title != "" {
			b.WriteString(": " + f.Title)
		}
	}
	return b.String()
}

// formValues reads what the person typed: NAME=VALUE pairs separated by
// ";", or, for a form of one field, its value alone.
func formValues(fields []mcp.Field, typed string) map[string]any {
	typed = strings.TrimSpace(typed)
	out := map[string]any{}
	if typed == "" {
		return out
	}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
	}
	for _, part := range strings.Split(typed, ";") {
		k, v, ok := strings.Cut(part, "=")
		if k = strings.TrimSpace(k); ok && known[k] {
			out[k] = strings.TrimSpace(v)
		}
	}
	if len(out) == 0 && len(fields) == 1 {
		out[fields[0].Name] = typed
	}
	return out
}

// elicitLink asks the person whether to open a server's page.
func elicitLink(ctx context.Context, approver *tui.Approver, call providers.ToolCall, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
	host := e.URL
	if u, err := url.Parse(e.URL); err == nil {
		host = u.Host
	}
	text := fmt.Sprintf("The MCP server %s asks you to open a page of %s in your browser:", e.Server, host)
	full := e.URL
	if m := strings.TrimSpace(e.Message); m != "" {
		full = m + "\n" + e.URL
	}
	d := approver.Ask(ctx, tui.Question{Call: call, Group: call.ID, Link: true, Text: text,
		Summary: tools.Summary{Title: e.Server + " asks to open " + host, Full: full}})
	if ans, refused, err := refusal(ctx, d); refused {
		return ans, err
	}
	return mcp.ElicitAnswer{Action: mcp.ElicitAccept}, nil // the host opens the page
}

// refusal is the answer to a server's question the person did not accept
// (refused true): ctx's error once the question was cancelled, cancel
// when they dismissed it (Esc), else decline.
func refusal(ctx context.Context, d loop.Decision) (ans mcp.ElicitAnswer, refused bool, err error) {
	switch {
	case ctx.Err() != nil:
		return mcp.ElicitAnswer{}, true, ctx.Err()
	case d.Why == tui.WhyDismissed:
		return mcp.ElicitAnswer{Action: mcp.ElicitCancel}, true, nil
	case !d.Allow:
		return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, true, nil
	}
	return mcp.ElicitAnswer{}, false, nil
}

// tuiBudget asks the person, when the session's spend cap is reached,
// whether to raise it by the same amount again (from what was spent) and
// go on, or stop the turn. Esc stops.
func tuiBudget(approver *tui.Approver) budget.Ask {
	var n atomic.Int64
	return func(ctx context.Context, r budget.Reached) bool {
		id := fmt.Sprintf("budget-%d", n.Add(1))
		raise := raiseText(r)
		d := approver.Ask(ctx, tui.Question{Call: providers.ToolCall{ID: id, Name: "spend cap", Arguments: "{}"}, Group: id,
			Text: "Spend cap reached: raise it to " + raise + " and go on, or stop?",
			Summary: tools.Summary{Title: "spend cap reached",
				Full: capitalize(r.Error()) + ". A raise allows the same amount again, from what was spent."},
			Yes: "Raise the cap to " + raise + " and go on", No: "Stop"})
		return d.Allow && ctx.Err() == nil
	}
}

// raiseText is the caps a raise sets: "$0.0033" or "$0.0033 or 5000 tokens".
func raiseText(r budget.Reached) string {
	switch {
	case r.Raise.USD > 0 && r.Raise.Tokens > 0:
		return fmt.Sprintf("%s or %d tokens", budget.USD(r.Raise.USD), r.Raise.Tokens)
	case r.Raise.USD > 0:
		return budget.USD(r.Raise.USD)
	}
	return fmt.Sprintf("%d tokens", r.Raise.Tokens)
}

// capitalize makes s's first letter upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
