package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// client is the connection as a session's backend sees it.
type client struct{ s *server }

var _ Client = client{}

// The option ids of a permission request; each is also its kind.
var permissionOptions = []sdk.PermissionOption{
	{OptionId: "allow_once", Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once"},
	{OptionId: "allow_always", Kind: sdk.PermissionOptionKindAllowAlways, Name: "Allow for this session"},
	{OptionId: "reject_once", Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject"},
	{OptionId: "reject_always", Kind: sdk.PermissionOptionKindRejectAlways, Name: "Reject for this session"},
}

// planOptions are a plan's: carry it out in auto mode, in ask mode, or
// keep planning.
var planOptions = []sdk.PermissionOption{
	{OptionId: "allow_always", Kind: sdk.PermissionOptionKindAllowAlways, Name: "Yes, and accept edits"},
	{OptionId: "allow_once", Kind: sdk.PermissionOptionKindAllowOnce, Name: "Yes, and ask before changes"},
	{OptionId: "reject_once", Kind: sdk.PermissionOptionKindRejectOnce, Name: "No, keep planning"},
}

// RequestPermission sends session/request_permission and maps the chosen
// option to an Answer. A request whose ctx ends before the answer is
// withdrawn by the connection ($/cancel_request) and answers Cancelled.
// An answer "cancelled" means the prompt turn was cancelled (ACP's
// outcome for it): the call is denied and the session's running turn is
// cancelled, so its prompt answers stopReason "cancelled", whether or not
// the client's session/cancel came first.
func (c client) RequestPermission(ctx context.Context, sessionID string, p Permission) (Answer, error) {
	kind := toolKind(p.Kind)
	status := sdk.ToolCallStatusPending
	title := p.Title
	opts := permissionOptions
	var content []sdk.ToolCallContent
	if p.Plan != "" {
		opts, title = planOptions, "Ready to code?"
		content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(p.Plan))}
	}
	req := sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(sessionID),
		Options:   opts,
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(p.CallID), Title: &title, Kind: &kind, Status: &status,
			Content: content, RawInput: rawInput(p.RawInput), Locations: c.s.locations(sessionID, p.Paths),
		},
	}
	resp, err := c.s.conn.RequestPermission(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Cancelled, nil
		}
		return Cancelled, fmt.Errorf("session/request_permission: %w", err)
	}
	if resp.Outcome.Selected == nil {
		if ls := c.s.get(sessionID); ls != nil {
			ls.stop()
		}
		return Cancelled, nil
	}
	switch resp.Outcome.Selected.OptionId {
	case "allow_once":
		return AllowOnce, nil
	case "allow_always":
		return AllowAlways, nil
	case "reject_once":
		return RejectOnce, nil
	case "reject_always":
		return RejectAlways, nil
	}
	return Cancelled, fmt.Errorf("session/request_permission: unknown option %q", resp.Outcome.Selected.OptionId)
}

// locations are paths relative to session id's working directory as ACP
// wants them: absolute.
func (s *server) locations(id string, paths []string) []sdk.ToolCallLocation {
	ls := s.get(id)
	if ls == nil {
		return nil
	}
	return locations(ls.cwd, paths)
}

// rawInput is a call's arguments as a JSON value (a string when they are
// not JSON), nil when empty.
func rawInput(args json.RawMessage) any {
	if len(args) == 0 {
		return nil
	}
	if json.Valid(args) {
		return args
	}
	return string(args)
}
