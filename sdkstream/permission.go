package sdkstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Verdict is the host's answer to can_use_tool.
type Verdict struct {
	Allow bool
	// UpdatedInput is the input the host allows the call with (nil: the
	// call's own).
	UpdatedInput json.RawMessage
	// Message is a denial's reason, for the model.
	Message string
	// Interrupt asks to stop the turn with the denial; CanUseTool has
	// cancelled the running turn.
	Interrupt bool
}

// CanUseTool asks the host whether tool name may run with input (the
// call's arguments, a JSON object) through a can_use_tool control request
// and waits for the answer. It fails when ctx ends, when standard input
// closes first, or when the host answers with an error. A denial with
// "interrupt": true also cancels the running turn, as the interrupt
// control request does.
func (s *Server) CanUseTool(ctx context.Context, name string, input json.RawMessage, toolUseID, reason string) (Verdict, error) {
	if len(input) == 0 || !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	req := map[string]any{"subtype": "can_use_tool", "tool_name": name, "input": input, "tool_use_id": toolUseID,
		"permission_suggestions": []any{}}
	if reason != "" {
		req["decision_reason"] = reason
	}
	r, err := s.request(ctx, req)
	if err != nil {
		return Verdict{}, err
	}
	var v struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
		Message      string          `json:"message"`
		Interrupt    bool            `json:"interrupt"`
	}
	if err := json.Unmarshal(r.Response, &v); err != nil {
		return Verdict{}, fmt.Errorf("can_use_tool's answer: %w", err)
	}
	switch v.Behavior {
	case "allow":
		out := Verdict{Allow: true}
		if len(v.UpdatedInput) > 0 && !bytes.Equal(v.UpdatedInput, []byte("null")) {
			out.UpdatedInput = v.UpdatedInput
		}
		return out, nil
	case "deny":
		if v.Interrupt {
			s.interrupt() // the host wants the turn stopped, not only the call
		}
		return Verdict{Message: v.Message, Interrupt: v.Interrupt}, nil
	}
	return Verdict{}, fmt.Errorf("can_use_tool's answer: unknown behavior %q", v.Behavior)
}
