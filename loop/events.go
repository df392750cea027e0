package loop

import (
	"encoding/json"
	"time"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
)

// Event is something that happened during a turn. It is sealed; the TUI and
// the headless printer switch over the types below. Deltas are deltas: a
// TextDelta carries only the new text.
type Event interface{ isEvent() }

// StepStarted reports that request number Step (counting from 1) is being
// sent to the model.
type StepStarted struct {
	Step int
}

// TextDelta is the next piece of the assistant's answer.
type TextDelta struct {
	Text string
}

// ReasoningDelta is the next piece of the assistant's visible reasoning.
type ReasoningDelta struct {
	Text string
}

// ToolCallStarted reports that a tool call begins to run. Arguments is the
// raw JSON text the model wrote (or a gate put in its place). How to show
// the call comes from its tool's definition, never from its name: Summary
// (a one-line title, the full text for an approval, the paths), Kind,
// Effects, and Toolset for a call that changes the toolset (pick_tools),
// which front-ends show as a note rather than a tool block.
type ToolCallStarted struct {
	ID        string
	Name      string
	Arguments string
	Summary   tools.Summary
	Kind      tools.Kind
	Effects   tools.Effects
	Toolset   bool
}

// ToolProgress reports a running call's progress (see tools.Progress): Text
// replaces the progress reported before it (bash: its last lines of
// output); Detail carries structured progress, such as a subagent's own
// events, for front-ends that know its type.
type ToolProgress struct {
	ID     string
	Name   string
	Text   string
	Detail any
}

// Notice is something for the person that the model did not say: which
// files a prompt's mentions attached, what a hook printed. Source says
// where it comes from ("mentions", "hook PostToolUse").
type Notice struct {
	Source string
	Text   string
}

// ToolCallFinished reports a tool call's result. Content is what the model
// reads; Meta holds the tool's structured details (exit status, counts)
// and, for a call that asked for approval, Meta[tools.MetaDecision]
// (Decision.Why, when not empty) and Meta[tools.MetaDenied] (true when it
// was refused).
type ToolCallFinished struct {
	ID      string
	Name    string
	Content string
	IsError bool
	// Images counts the pictures the result carries after Content.
	Images int
	Meta   map[string]any
	// Kind, Effects and Toolset are the tool's, as in ToolCallStarted.
	Kind    tools.Kind
	Effects tools.Effects
	Toolset bool
	// Duration is how long the call took, less Waited: the time its
	// approval question waited for an answer (zero when none was asked).
	Duration time.Duration
	Waited   time.Duration
}

// ToolsetChanged reports that pick_tools changed which tools carry their
// full schema; the next request is rebuilt with them. Picked is the whole
// picked set, sorted; Added the names this call added.
type ToolsetChanged struct {
	Picked []string
	Added  []string
}

// Retry reports that the provider will resend a request after Delay.
// Discarded is true when the failed attempt's stream had already sent text
// or reasoning deltas: they are void, and the deltas that follow start the
// response again.
type Retry struct {
	Attempt   int
	Max       int
	Delay     time.Duration
	Err       string
	Discarded bool
}

// Usage reports the tokens of one step and the running total of the turn.
type Usage struct {
	Step  int
	Usage providers.Usage
	Total providers.Usage
	// Model is the model that used Usage: the loop's, or the fallback
	// the turn moved to (FellBack), priced at its own price.
	Model string
}

// Compacting reports that a compaction starts: the model is asked for a
// summary of the older part of the conversation. BeforeTokens estimates the
// request the conversation makes now; Auto is false for /compact.
type Compacting struct {
	BeforeTokens int
	Auto         bool
}

// Compacted reports a finished compaction: the older messages were replaced
// by Summary, and the request now carries about AfterTokens (estimated).
type Compacted struct {
	BeforeTokens int
	AfterTokens  int
	Summary      string
	Auto         bool
}

// StopReason says why a turn ended.
type StopReason string

// The reasons a turn ends.
const (
	// StopAnswered: the model answered without calling a tool.
	StopAnswered StopReason = "answered"
	// StopMaxSteps: the step limit was reached while the model still called
	// tools.
	StopMaxSteps StopReason = "max_steps"
	// StopCancelled: the context was cancelled.
	StopCancelled StopReason = "cancelled"
	// StopError: the provider failed (unreachable, refused, stream cut).
	StopError StopReason = "error"
	// StopMaxTokens: the model's responses were cut by its output limit
	// more than MaxContinuations times in a row.
	StopMaxTokens StopReason = "max_tokens"
	// StopContextFull: the next request would not fit the context window,
	// and compaction is off or could not free enough of it.
	StopContextFull StopReason = "context_full"
	// StopRefused: the model declined to answer (finish reason
	// content_filter, Anthropic's refusal).
	StopRefused StopReason = "refused"
	// StopStructuredOutput: Config.CheckAnswer rejected the model's final
	// answer after Config.AnswerCorrections corrections (an answer that
	// is not one JSON value valid against --json-schema); Done.Answer is
	// the last answer, Done.Err says what is still wrong with it.
	StopStructuredOutput StopReason = "structured_output_retries"
	// StopBudget: the next request would have started past a spend cap
	// (Config.Budget refused it: --max-budget-usd, --max-tokens-total, a
	// subagent definition's max_budget_usd). The answer is the text the
	// model wrote in the turn so far, then a line saying which cap was
	// reached and what was spent; Err is Budget's error.
	StopBudget StopReason = "max_budget"
)

// CancelledMarker ends the partial answer of a response the person
// cancelled as it streamed, as the conversation keeps it: the model reads
// that its answer was cut there (Claude Code's "[Request interrupted by
// user]"), and a resumed session's screen shows the cut.
const CancelledMarker = "\n\n[Interrupted by the user]"

// Done is the last event of a turn; the channel is closed after it.
type Done struct {
	// Answer is the assistant's text of the last step; on cancellation or a
	// cut stream, the partial text that arrived.
	Answer string
	Reason StopReason
	// Err is the failure for StopError, StopCancelled, StopMaxTokens,
	// StopContextFull, StopRefused, StopStructuredOutput and StopBudget,
	// nil otherwise.
	Err error
	// Structured is the answer's value that Config.CheckAnswer accepted
	// (one JSON value, as the check returned it) when the turn ended
	// with StopAnswered; nil without a check or for any other reason.
	Structured json.RawMessage
	// Steps is the number of requests sent; ToolCalls the number of tool
	// calls answered.
	Steps     int
	ToolCalls int
	Usage     providers.Usage
	Duration  time.Duration
}

func (StepStarted) isEvent()      {}
func (TextDelta) isEvent()        {}
func (ReasoningDelta) isEvent()   {}
func (ToolCallStarted) isEvent()  {}
func (ToolCallFinished) isEvent() {}
func (ToolProgress) isEvent()     {}
func (Notice) isEvent()           {}
func (ToolsetChanged) isEvent()   {}
func (Retry) isEvent()            {}
func (Usage) isEvent()            {}
func (Compacting) isEvent()       {}
func (Compacted) isEvent()        {}
func (Done) isEvent()             {}
