package loop

// ChildEvent is one event of a nested turn (a subagent's: a loop run on
// its own conversation) as the tool call that started it reports it: the
// Detail of that call's tools.Progress, and so of its ToolProgress events.
// It says who the child is and carries either the child's start (Start,
// with its Model) or one of its events (Event), in the order the child's
// loop emitted them; the child's Done comes last. Front-ends show children
// from it without knowing the tool that runs them.
type ChildEvent struct {
	// ParentCallID is the id of the tool call that started the child.
	ParentCallID string
	// Description is that call's description of the child's task; Agent
	// the name of the agent definition it runs ("" for the default);
	// Session the child's session id.
	Description, Agent, Session string
	// Start marks the first event, sent before the child's first request;
	// Model is the model it runs on (set only with Start).
	Start bool
	Model string
	// Event is the child's event; nil with Start.
	Event Event
}
