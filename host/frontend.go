package host

import (
	"context"

	"github.com/agent-dev/agent/budget"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/plan"
)

// FrontEnd is what differs between front-ends, as data: how a question
// reaches a person, what a repository's own files may do, where warnings
// go, when the MCP servers start. The zero FrontEnd is a headless run in
// mode "" (set Mode): nobody is asked, a plan is the answer, nothing of
// the repository's runs untrusted, warnings are dropped.
type FrontEnd struct {
	// Name is the front-end's name in telemetry (agent.frontend): tui,
	// headless, acp or sdk.
	Name string
	// Interactive says a person sits at this front-end (the interface): a
	// PreToolUse hook that gave no answer makes the call asked rather than
	// denied, the Notification hooks hear each question and each wait for
	// a prompt longer than idle_notification.
	Interactive bool
	// Mode is the permission mode the session starts in: ModeAsk,
	// ModeAuto, ModePlan or ModeYolo (no sandbox, nothing asked).
	Mode string
	// AllowBash runs commands without asking (--allow-bash), still in the
	// sandbox and under the deny rules.
	AllowBash bool
	// Asker is asked what the policy leaves to a person; nil denies it
	// with a reason the model reads (headless).
	Asker Asker
	// Plan decides a plan exit_plan_mode proposes (an approved plan's
	// Outcome.Mode becomes the mode in force); nil ends the turn with the
	// plan as its answer (Outcome.Stop: headless).
	Plan func(ctx context.Context, callID, text string) (plan.Outcome, error)
	// Trust decides what a repository's own files would run.
	Trust Trust
	// Warn shows a line to the person: stderr headless, a note in the
	// interface; nil drops it. It may be called from any goroutine.
	Warn func(string)
	// MCP says when the MCP servers start and how their questions reach
	// a person.
	MCP MCPStart
	// Files, when not nil, is where read_file, edit_file and write_file
	// read and write text instead of the disk (an ACP client's buffers).
	Files fs.Buffers
	// Rules are permission rules the front-end adds to the config's (the
	// Claude Agent SDK's --allowedTools, --disallowedTools and tools
	// option).
	Rules Rules
	// Budget, when not nil, is asked when the session's spend cap is
	// reached (--max-budget-usd, --max-tokens-total) whether to raise it
	// and go on (the interface asks the person); nil stops the run.
	Budget budget.Ask
}

// Trust decides whether a repository's own configuration that would run
// code (hooks, custom commands' !`command` snippets, .mcp.json servers)
// runs: a remembered answer for the definition as it is now, else Ask's,
// else Hooks and MCP.
type Trust struct {
	// Ask, when not nil, asks the person (the interface): call shows what
	// would run, question says why; answered false when they dismissed it
	// (asked again at the next start). The answers are remembered in the
	// data directory's trust store.
	Ask func(ctx context.Context, call providers.ToolCall, question string) (allow, answered bool)
	// Hooks trusts every hook and command snippet of the repository
	// without asking (--trust-project); MCP every server of its .mcp.json
	// (--trust-project-mcp).
	Hooks, MCP bool
}

// MCPStart says when a session's MCP servers start and how their
// questions reach a person.
type MCPStart struct {
	// Later leaves the servers stopped until Session.StartMCP (the
	// interface starts them after its first frame) and has no request
	// wait for them; otherwise OpenSession starts them, waits for none,
	// and the first request waits only for the servers never seen before
	// (no tool list of theirs is known), each up to its startup_timeout,
	// so that their tools are offered from the first prompt (the others
	// are offered by their last known tools while they start).
	Later bool
	// Servers are servers the front-end adds to the configured ones (an
	// ACP client's, the SDK's --mcp-config); Where names them in errors.
	Servers map[string]mcp.ServerDef
	Where   string
	// Elicit asks a person a server's form; nil declines it (or takes the
	// defaults of a server with elicitation = "defaults"). With ElicitURL
	// it is also asked whether to open a server's page: an accept opens it
	// in the browser.
	Elicit    mcp.ElicitFunc
	ElicitURL bool
}

// Rules are permission rules a front-end adds to the config's
// [permissions].
type Rules struct {
	// AllowTools and DenyTools name tools (agent's names, mcp__ globs).
	AllowTools, DenyTools []string
	// AllowCommands and DenyCommands are command rules ("git status").
	AllowCommands, DenyCommands []string
	// Only, when not nil, are the only built-in tools offered: the calls
	// of the others are denied (MCP servers' tools stay).
	Only []string
}

// warn shows msg through Warn, when there is one.
func (fe FrontEnd) warn(msg string) {
	if fe.Warn != nil {
		fe.Warn(msg)
	}
}
