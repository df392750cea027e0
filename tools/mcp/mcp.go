// Package mcp runs Model Context Protocol servers and offers their tools as
// tools.Tool values. A Manager starts the configured servers in the
// background (stdio servers as child processes in their own process group,
// streamable HTTP servers over HTTP), keeps the current tool list of each
// (notifications/tools/list_changed replace it), reports each server's
// state, and stops them all on Close. A server that fails to start or dies
// is reported once; one that ran and stopped is restarted with backoff
// (its tools come back), and a streamable HTTP stream that drops is
// resumed (Last-Event-ID) by the SDK first.
//
// The client declares roots (the working directory), elicitation in form
// mode (asked through Options.Elicit) and sends a progressToken with each
// tool call, whose notifications reach the call's Progress. A server's
// prompts are offered as slash commands (Prompts, GetPrompt) and its
// resources through Resources, ReadResource and the mcp_resource tool.
//
// Each tool is named mcp__SERVER__TOOL (see ToolName). Its effects are
// unknown unless the server's annotations say read-only, and annotations
// are the server's hints, not guarantees.
package mcp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// Default timeouts of a server.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultStartupTimeout = 30 * time.Second
)

// Config describes one server. Exactly one of Command and URL is set,
// unless the server is not started (Disabled or Skipped).
type Config struct {
	// Name is the server's name in tool names and reports.
	Name string
	// Command, Args, Env and Dir start a stdio server: Env is the whole
	// environment of the process (nil: this process's), Dir its working
	// directory.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// EnvNames are the names of the variables its definition's env table
	// sets (Env holds all of the process's): with Command, Args and URL
	// they name the definition whose tool list is kept (see
	// Options.CacheDir).
	EnvNames []string
	// URL and Headers reach a streamable HTTP server; Headers are sent
	// with every request. With SSE, URL is the event stream of a server
	// that speaks the older HTTP+SSE transport (MCP 2024-11-05).
	URL     string
	Headers map[string]string
	SSE     bool
	// OAuth is the server's [oauth] table (nil: none); Auth, when not nil,
	// authorizes a streamable HTTP server's requests (see package oauth).
	// An authorization during the start gives the start AuthTimeout more
	// from its beginning (a person in the browser); a server that does not
	// answer still fails after StartupTimeout.
	OAuth       *oauth.Config
	Auth        auth.OAuthHandler
	AuthTimeout time.Duration
	// Timeout bounds one call (0: DefaultTimeout); StartupTimeout the
	// start, the handshake and the first tool list (0:
	// DefaultStartupTimeout), counted from this server's own start (after
	// its Gate), whatever the others do.
	Timeout        time.Duration
	StartupTimeout time.Duration
	// ElicitDefaults accepts the server's forms with their defaults when
	// nobody can be asked (Options.Elicit is nil: headless); a form
	// whose required field has no default is declined all the same.
	ElicitDefaults bool
	// Disabled servers are listed but not started; Skipped ones neither,
	// with Skipped saying why.
	Disabled bool
	Skipped  string
	// Gate, when not nil, is asked before the server starts (whether to
	// trust a project's server); when it says no, the server is skipped
	// with its reason.
	Gate func(ctx context.Context) (ok bool, why string)
}

// State is where a server is.
type State string

// The states of a server.
const (
	StateStarting State = "starting"
	StateRunning  State = "running"
	// StateReconnecting: a server that ran stopped and is being
	// restarted; Status.Error says why it stopped.
	StateReconnecting State = "reconnecting"
	StateFailed       State = "failed"
	StateDisabled     State = "disabled"
	StateSkipped      State = "skipped"
)

// Status is a server's state for reports (agent mcp list, /mcp).
type Status struct {
	Name  string   `json:"name"`
	State State    `json:"state"`
	Error string   `json:"error"`
	Tools []string `json:"tools"`
	// Prompts are the slash commands of its prompts (mcp__SERVER__PROMPT);
	// Resources the number of resources it lists.
	Prompts   []string `json:"prompts,omitempty"`
	Resources int      `json:"resources,omitempty"`
}
