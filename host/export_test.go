package host

import "context"

// WaitMCP returns once every MCP server of the session started or failed,
// or when ctx is done: the event a test of FrontEnd.MCP.Later waits for
// after StartMCP.
func (s *Session) WaitMCP(ctx context.Context) { s.a.mcp.Wait(ctx) }

// WaitSweep returns once the checkpoints' sweep as the session opened
// (the store's sessions its database lacks forgotten) ended.
func (s *Session) WaitSweep() {
	if c := s.a.checkpoints; c != nil {
		<-c.swept
	}
}

// OnCheckpointAhead has fn called after each checkpoint taken ahead of a
// turn's end (as the request after a call that may have changed files
// goes out). Call it before the turn.
func (s *Session) OnCheckpointAhead(fn func()) { s.a.checkpoints.aheadTaken = fn }

// BuiltinToolNames are the built-in tools agent doctor checks agent
// definitions against.
var BuiltinToolNames = builtinToolNames
