// Package acp serves the Agent Client Protocol (version 1, as the official
// SDK @agentclientprotocol/sdk and its schema define it): newline-delimited
// JSON-RPC 2.0 on standard input and output, through
// github.com/coder/acp-go-sdk. It is a front-end like the interface: the
// sessions, their loops and the approval composition come from a Backend
// (cmd builds them); the package turns ACP requests into turns, the loop's
// events into session/update notifications, and the approval questions the
// backend's askers put to it into session/request_permission requests.
package acp

import (
	"context"
	"encoding/json"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// Backend opens the sessions the server serves; cmd implements it.
type Backend interface {
	// NewSession creates a session working in req.Cwd (an absolute
	// path) with req's MCP servers started beside the configured ones.
	NewSession(ctx context.Context, req SessionRequest) (Session, error)
	// LoadSession opens the stored session id to go on with it; its
	// History is replayed to the client. An unknown id is an error.
	LoadSession(ctx context.Context, id string, req SessionRequest) (Session, error)
}

// SessionRequest is what a client asks of a new or loaded session.
type SessionRequest struct {
	// Cwd is the session's working directory, absolute.
	Cwd string
	// MCPServers are the client's servers for the session.
	MCPServers []MCPServer
	// Client asks the client's person about calls (the backend's asker
	// calls it) and, where the client declared it, reads and writes its
	// files.
	Client Client
}

// MCPServer is an MCP server a client gives a session: Type is "stdio"
// (Command, Args, Env), "http" (streamable HTTP) or "sse" (URL, Headers).
type MCPServer struct {
	Name    string
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Session is one session of the backend, its loop and its permission mode.
type Session interface {
	// ID is the session's id in the store, which is its ACP sessionId.
	ID() string
	// Turn starts a turn through the turn runner; see turn.Runner.Turn.
	Turn(ctx context.Context, p turn.Prompt) <-chan loop.Event
	// Mode is the permission mode in force: ask, auto or plan.
	Mode() string
	// SetMode switches it; an unknown mode is an error.
	SetMode(mode string) error
	// History is the stored conversation, for session/load's replay.
	History() []providers.Message
	// Describe is how a call of tool name with args is shown: its summary
	// and kind (a tool no longer offered is KindOther).
	Describe(name, args string) (tools.Summary, tools.Kind)
	// ReadFile returns the text of rel, a path relative to the session's
	// working directory, read inside it; ok is false when it cannot be
	// read (missing, outside, not text). It gives an edit's diff.
	ReadFile(rel string) (text string, ok bool)
	// Close ends the session's turn and releases what it opened.
	Close()
}

// Client is the ACP client as a session's backend sees it.
type Client interface {
	// RequestPermission asks the client's person about p for session
	// sessionID and returns the answer; a cancelled request (the turn was
	// cancelled, or ctx) is Cancelled, and an error is a failed request.
	RequestPermission(ctx context.Context, sessionID string, p Permission) (Answer, error)
	// FileSystem reports what the client declared in initialize: whether
	// it reads (fs/read_text_file) and writes (fs/write_text_file) files.
	FileSystem() (read, write bool)
	// ReadTextFile reads path (absolute) through the client: its buffer
	// when the editor has the file open, unsaved changes included.
	ReadTextFile(ctx context.Context, sessionID, path string) (string, error)
	// WriteTextFile writes content to path (absolute) through the client.
	WriteTextFile(ctx context.Context, sessionID, path, content string) error
}

// Permission is one question: a tool call, or a plan to approve.
type Permission struct {
	CallID string
	Title  string
	Kind   tools.Kind
	// RawInput is the call's arguments, JSON.
	RawInput json.RawMessage
	// Paths are the files the call works on, relative to the session's
	// working directory.
	Paths []string
	// Plan, when not empty, is a plan exit_plan_mode proposes: the
	// options are to carry it out in auto or ask mode, or keep planning.
	Plan string
}

// Answer is the option the person chose.
type Answer int

// The answers of a question; for a plan, AllowAlways is "yes, in auto
// mode" and AllowOnce "yes, asking before changes".
const (
	Cancelled Answer = iota
	AllowOnce
	AllowAlways
	RejectOnce
	RejectAlways
)

// Allows reports whether the answer lets the call run.
func (a Answer) Allows() bool { return a == AllowOnce || a == AllowAlways }
