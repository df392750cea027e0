package tui

import (
	"context"
	"sync"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// Approver connects the loop's approval hook to the person at the
// keyboard. The loop's goroutine calls Ask and blocks; the TUI receives the
// question as a message, shows it inline in the tool's block and sends the
// answer back. Tools allowed "for this session" are remembered here and
// not asked again. It is safe for concurrent use.
type Approver struct {
	requests chan approvalRequest

	mu      sync.Mutex
	session map[string]bool // tool names allowed for the session
}

// Question is what the person is asked about: a tool call, the group its
// "allow for this session" answer covers (the tool's name, or one name for
// several tools such as "edits"), and for an edit the diff it would make.
type Question struct {
	Call  providers.ToolCall
	Group string
	Diff  string
	// Summary is how the call reads (its tool's definition summarises it);
	// the zero value reads the arguments as they are.
	Summary tools.Summary
	// Commands is true for a tool that runs commands: the question asks
	// about "this command".
	Commands bool
	// Origin, when not empty, names who asks: a subagent's description.
	Origin string
	// Text, when not empty, is the question shown instead of "Allow
	// NAME to run?", and marks a question that is no call of the loop
	// (whether to start a project's MCP server): its block ends with the
	// answer, since no result will follow.
	Text string
	// Warning, when not empty, is shown above the call in the question's
	// block: what makes this call risky (a write to git metadata).
	Warning string
	// Recheck, when not nil, decides the call again in the permission
	// mode now in force; ok is false when a person must still be asked.
	// The interface calls it when Shift+Tab switches the mode while the
	// question waits, and a decision it returns answers the question. It
	// must be quick and do no I/O (it runs in the interface's update).
	Recheck func() (d loop.Decision, ok bool)
	// Plan marks plan mode's question about a plan (Summary.Full): its
	// answers are approve and go on in ask mode (Decision.Allow),
	// approve and go on in auto mode (Allow, Why WhyPlanAuto), or keep
	// planning with what the person typed (Reason). Nothing is
	// remembered for the session.
	Plan bool
	// SessionLabel, when not empty, is the label of the answer that
	// allows the Group for the session ("Allow docs.rs for this
	// session").
	SessionLabel string
	// Form marks an MCP server's form (elicitation; Text holds the
	// message and the fields): its answers are accept (Decision.Allow,
	// no Reason), the values typed (Allow, the text in Reason), and
	// decline; Esc cancels (WhyDismissed).
	Form bool
	// Link marks an MCP server's request to open a page (URL-mode
	// elicitation; Text holds the message and the URL): its answers are
	// open it (Decision.Allow) and decline; Esc cancels (WhyDismissed).
	Link bool
	// Always, when not empty, is the label of one more answer, which
	// allows this call and tells the asker to remember it beyond the
	// session ("Always allow docs.rs"): its Decision's Why is WhyAlways,
	// and the asker keeps the answer where it belongs. It also allows the
	// Group for the session.
	Always string
	// Yes and No, when not empty, are the labels of a question with
	// Text's two answers, instead of "Yes (remembered)" and "No
	// (remembered)": what the answers do (raise the spend cap and go on,
	// or stop). Esc then answers No.
	Yes, No string
}

// WhyAlways is the Decision.Why of the Always answer.
const WhyAlways = "person: always"

// WhyPlanAuto is the Decision.Why of a plan approved to go on in auto mode.
const WhyPlanAuto = "person: approved the plan, auto"

// approvalRequest is one question to the person. The answer goes to reply,
// which has room for it, so answering never blocks.
type approvalRequest struct {
	call     providers.ToolCall
	summary  tools.Summary
	commands bool
	origin   string
	diff     string
	text     string
	warning  string
	recheck  func() (loop.Decision, bool)
	plan     bool
	form     bool
	link     bool
	session  string // the session answer's label; "" the default
	always   string // the always answer's label; "" offers none
	yes, no  string // a question with text's labels; "" the default
	reply    chan approvalAnswer
}

// approvalAnswer is the person's choice. instructions, with allow false,
// is what the person said to do instead; the model reads it with the denial.
type approvalAnswer struct {
	allow        bool
	forSession   bool
	always       bool // the Always answer
	instructions string
	dismissed    bool // Esc or Ctrl+C on a question with Text: no answer
	// decided, when not nil, is the decision of the question's Recheck
	// after a switch of the permission mode; it is the answer.
	decided *loop.Decision
}

// WhyDismissed is the Decision.Why of a question with Text that the person
// dismissed (Esc, Ctrl+C) rather than answered.
const WhyDismissed = "dismissed by the person"

// NewApprover returns an Approver with nothing allowed yet.
func NewApprover() *Approver {
	return &Approver{requests: make(chan approvalRequest), session: map[string]bool{}}
}

// Ask asks the person whether q's call may run and waits for the answer.
// It returns at once when q's group was allowed for the session, and a
// denial when ctx is cancelled (the turn was cancelled while it asked). A
// denial with instructions carries the person's words in Decision.Reason,
// which the model reads as the call's error result.
func (a *Approver) Ask(ctx context.Context, q Question) loop.Decision {
	call, group := q.Call, q.Group
	if group == "" {
		group = call.Name
	}
	a.mu.Lock()
	allowed := a.session[group]
	a.mu.Unlock()
	if allowed {
		return loop.Decision{Allow: true, Why: "person: allowed " + group + " for the session"}
	}
	if ctx.Err() != nil {
		return loop.Decision{Reason: "cancelled by the user", Why: "denied: cancelled while asking"}
	}
	sum := q.Summary
	switch {
	case sum.Title != "" || sum.Full != "":
	case q.Text != "" && !q.Form:
		// A question of no tool (trust in a repository's hooks, servers,
		// settings): its details read as lines, not as JSON.
		sum = tools.Summary{Full: readableArgs(call.Arguments)}
	default:
		sum = tools.DefaultSummary(call.Arguments)
	}
	req := approvalRequest{call: call, summary: sum, commands: q.Commands, origin: q.Origin, diff: q.Diff, text: q.Text,
		warning: q.Warning, recheck: q.Recheck, plan: q.Plan, form: q.Form, link: q.Link, session: q.SessionLabel, always: q.Always, yes: q.Yes, no: q.No, reply: make(chan approvalAnswer, 1)}
	select {
	case a.requests <- req:
	case <-ctx.Done():
		return loop.Decision{Reason: "cancelled by the user", Why: "denied: cancelled while asking"}
	}
	select {
	case ans := <-req.reply:
		if ans.decided != nil {
			return *ans.decided
		}
		if ans.dismissed {
			return loop.Decision{Reason: "the user dismissed the question", Why: WhyDismissed}
		}
		if q.Plan {
			return planDecision(ans)
		}
		if q.Link {
			if ans.allow {
				return loop.Decision{Allow: true, Why: "person: opened the page"}
			}
			return loop.Decision{Reason: "the user declined", Why: "person: declined the page"}
		}
		if q.Form {
			if ans.allow || ans.instructions != "" {
				return loop.Decision{Allow: true, Reason: ans.instructions, Why: "person: answered the form"}
			}
			return loop.Decision{Reason: "the user declined", Why: "person: declined the form"}
		}
		if !ans.allow && ans.instructions != "" {
			return loop.Decision{
				Reason: "the user denied this " + call.Name + " call and said what to do instead: " + ans.instructions,
				Why:    "denied by the person, with instructions",
			}
		}
		if !ans.allow {
			return loop.Decision{Reason: "the user denied this " + call.Name + " call; ask them or try another way", Why: "denied by the person"}
		}
		if ans.forSession || ans.always {
			a.mu.Lock()
			a.session[group] = true
			a.mu.Unlock()
			if ans.always {
				return loop.Decision{Allow: true, Why: WhyAlways}
			}
			return loop.Decision{Allow: true, Why: "person: for the session"}
		}
		return loop.Decision{Allow: true, Why: "person: once"}
	case <-ctx.Done():
		return loop.Decision{Reason: "cancelled by the user", Why: "denied: cancelled while asking"}
	}
}

// reset forgets what was allowed for the session (/new).
func (a *Approver) reset() {
	a.mu.Lock()
	clear(a.session)
	a.mu.Unlock()
}

// planDecision is the decision of a plan's question.
func planDecision(ans approvalAnswer) loop.Decision {
	switch {
	case ans.allow && ans.forSession:
		return loop.Decision{Allow: true, Why: WhyPlanAuto}
	case ans.allow:
		return loop.Decision{Allow: true, Why: "person: approved the plan, ask"}
	}
	return loop.Decision{Reason: ans.instructions, Why: "person: keep planning"}
}
