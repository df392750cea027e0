package sdkstream

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// initMessage is the system init message, sent once before the first turn.
func (s *Server) initMessage() map[string]any {
	in := s.cfg.Init
	return map[string]any{"type": "system", "subtype": "init", "session_id": in.SessionID, "uuid": turn.NewID(),
		"cwd": in.Cwd, "model": in.Model, "tools": nonNil(in.Tools), "mcp_servers": mcpStatus(in.MCPServers),
		"permissionMode": in.PermissionMode, "apiKeySource": "none", "slash_commands": nonNil(in.SlashCommands),
		"output_style": "default", "agents": nonNil(in.Agents), "skills": nonNil(in.Skills), "plugins": []any{},
		"claude_code_version": in.Version}
}

func mcpStatus(names []string) []map[string]string {
	out := []map[string]string{}
	for _, n := range names {
		out = append(out, map[string]string{"name": n, "status": "connected"})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// userPrompt is a user message's content (a string, or text and image
// blocks) as a turn's prompt.
func userPrompt(raw json.RawMessage) (turn.Prompt, error) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return turn.Prompt{}, err
	}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		return turn.Text(text), nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return turn.Prompt{}, fmt.Errorf("content is neither a string nor blocks: %w", err)
	}
	var parts []providers.Part
	var typed []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, providers.Text{Text: b.Text})
			typed = append(typed, b.Text)
		case "image":
			if b.Source.Type != "base64" {
				return turn.Prompt{}, fmt.Errorf("image source %q: only base64 images are taken", b.Source.Type)
			}
			data, err := base64.StdEncoding.DecodeString(b.Source.Data)
			if err != nil {
				return turn.Prompt{}, fmt.Errorf("image: %w", err)
			}
			parts = append(parts, providers.Image{MediaType: b.Source.MediaType, Data: data})
		}
	}
	if len(parts) == 0 {
		return turn.Prompt{}, errors.New("the message has no text")
	}
	return turn.Prompt{Message: providers.Message{Role: providers.RoleUser, Parts: parts}, Typed: strings.Join(typed, "\n")}, nil
}

// runTurn runs one turn and writes its messages and its result.
func (s *Server) runTurn(ctx context.Context, p turn.Prompt) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	model := s.mainModel()
	main := s.newTranslator("", model)
	children := map[string]*translator{}
	childModels := map[string]string{}   // by the task call's id
	childCounted := map[string]bool{}    // the children whose requests' usage was counted
	used := map[string]providers.Usage{} // the turn's own requests, by the model that answered
	var done loop.Done
	var werr error
	for ev := range s.cfg.Turn(ctx, p) {
		if werr != nil {
			continue
		}
		if d, ok := ev.(loop.Done); ok {
			done = d
			werr = main.flush()
			continue
		}
		if tp, ok := ev.(loop.ToolProgress); ok {
			if se, ok := tp.Detail.(loop.ChildEvent); ok && se.Start {
				childModels[se.ParentCallID] = se.Model
			}
			if se, ok := tp.Detail.(loop.ChildEvent); ok && se.Event != nil {
				// Each request at the model that answered it (a child may fall
				// back); a child that reported no request's usage, at its model.
				switch ev := se.Event.(type) {
				case loop.Usage:
					s.spend(cmp.Or(ev.Model, childModels[se.ParentCallID]), ev.Usage)
					childCounted[se.ParentCallID] = true
				case loop.Done:
					if !childCounted[se.ParentCallID] {
						s.spend(childModels[se.ParentCallID], ev.Usage)
					}
				}
				tr := children[se.ParentCallID]
				if tr == nil {
					tr = s.newTranslator(se.ParentCallID, cmp.Or(childModels[se.ParentCallID], model))
					children[se.ParentCallID] = tr
				}
				switch ev := se.Event.(type) {
				case loop.Done:
					werr = tr.flush()
				case loop.FellBack: // a subagent's: told as the session's are, with the task call's id
					if werr = tr.event(ev); werr == nil {
						msg := fallbackMessage(s.cfg.Init.SessionID, ev)
						msg["parent_tool_use_id"] = se.ParentCallID
						werr = s.write(msg)
					}
				default:
					werr = tr.event(se.Event)
				}
				continue
			}
		}
		switch ev := ev.(type) {
		case loop.Usage:
			used[ev.Model] = used[ev.Model].Add(ev.Usage)
		case loop.FellBack:
			// Ends the failed model's message (void when Discarded); the
			// next are the fallback's.
			if werr = main.event(ev); werr == nil {
				werr = s.write(fallbackMessage(s.cfg.Init.SessionID, ev))
			}
			if werr != nil {
				cancel()
			}
			continue
		}
		if werr == nil {
			werr = main.event(ev)
		}
		if werr != nil {
			cancel()
		}
	}
	if len(used) == 0 {
		s.spend(model, done.Usage)
	}
	for m, u := range used {
		s.spend(cmp.Or(m, model), u)
	}
	if werr != nil {
		return werr
	}
	return s.write(s.result(done))
}

// result is the result message of a turn. As the SDK defines them, usage
// is the turn's own (the session's loop, not its subagents), while
// total_cost_usd and modelUsage are the run's so far: every turn's, their
// subagents' included. structured_output is the answer's value when the
// session checks answers against a schema (the SDK's outputFormat).
func (s *Server) result(d loop.Done) map[string]any {
	subtype := Subtype(d.Reason)
	isErr := subtype != SubtypeSuccess
	obj := map[string]any{"type": "result", "subtype": subtype, "is_error": isErr, "result": d.Answer,
		"session_id": s.cfg.Init.SessionID, "uuid": turn.NewID(), "num_turns": d.Steps,
		"duration_ms": d.Duration.Milliseconds(), "duration_api_ms": d.Duration.Milliseconds(),
		"total_cost_usd": s.totalCost(), "usage": usage(d.Usage), "modelUsage": s.modelUsage(), "permission_denials": []any{},
		"stop_reason": stopReason(d.Reason)}
	switch {
	case d.Reason == loop.StopMaxSteps:
		obj["errors"] = []string{fmt.Sprintf("reached the maximum number of turns (%d)", d.Steps)}
	case d.Reason == loop.StopBudget && d.Err != nil:
		obj["errors"] = []string{d.Err.Error()}
	case isErr:
		msg := string(d.Reason)
		if d.Err != nil {
			msg += ": " + d.Err.Error()
		}
		obj["errors"] = []string{msg}
	}
	if d.Structured != nil {
		obj["structured_output"] = d.Structured
	}
	return obj
}

// The result subtypes of the SDK's result message that Subtype gives.
const (
	SubtypeSuccess          = "success"
	SubtypeMaxTurns         = "error_max_turns"
	SubtypeExecution        = "error_during_execution"
	SubtypeStructuredOutput = "error_max_structured_output_retries"
	SubtypeBudget           = "error_max_budget_usd"
)

// Subtype is the SDK's result subtype for a turn that ended for reason:
// success for an answer, error_max_turns at the step limit,
// error_max_structured_output_retries when the answers never matched the
// schema, error_max_budget_usd when a spend cap stopped the run,
// error_during_execution for every other end.
func Subtype(reason loop.StopReason) string {
	switch reason {
	case loop.StopAnswered:
		return SubtypeSuccess
	case loop.StopMaxSteps:
		return SubtypeMaxTurns
	case loop.StopStructuredOutput:
		return SubtypeStructuredOutput
	case loop.StopBudget:
		return SubtypeBudget
	}
	return SubtypeExecution
}

// stopReason is the Anthropic stop reason nearest to how a turn ended.
func stopReason(r loop.StopReason) any {
	switch r {
	case loop.StopAnswered:
		return "end_turn"
	case loop.StopMaxTokens:
		return "max_tokens"
	case loop.StopRefused:
		return "refusal"
	}
	return nil
}

// usage is a usage in the Anthropic API's names.
func usage(u providers.Usage) map[string]any {
	return map[string]any{"input_tokens": plainInput(u), "output_tokens": u.OutputTokens,
		"cache_read_input_tokens": u.CachedInputTokens, "cache_creation_input_tokens": u.CacheWriteTokens}
}

// fallbackMessage tells the client that the turn moved to a fallback
// model (loop.FellBack): a system message of subtype "model_fallback",
// which the Claude Agent SDK hands on as it reads it (its own system
// messages are init and compact_boundary).
func fallbackMessage(session string, ev loop.FellBack) map[string]any {
	return map[string]any{"type": "system", "subtype": "model_fallback", "session_id": session, "uuid": turn.NewID(),
		"from": ev.From, "to": ev.To, "error": ev.Err, "discarded": ev.Discarded}
}
