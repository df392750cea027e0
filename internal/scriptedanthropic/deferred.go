package scriptedanthropic

import (
	"encoding/json"
	"fmt"
)

// Deferred tools, as the Messages API treats them: a tool defined with
// "defer_loading": true is not part of the prompt until a tool_result
// block's content references it ({"type": "tool_reference", "tool_name":
// ...}); the API then expands the reference into the tool's definition
// where the result sits. So deferred tools are neither billed nor part of
// the cached prefix, and loading one leaves the prefix before it intact.

// deferredInvalid returns the message the API answers with 400 when p
// misuses deferred tools: every tool deferred, or a tool_reference to a
// name that is not a deferred tool of the request. "" when p is valid.
func deferredInvalid(p Params) string {
	deferred := map[string]bool{}
	for _, t := range p.Tools {
		if t.DeferLoading {
			deferred[t.Name] = true
		}
	}
	if len(p.Tools) > 0 && len(deferred) == len(p.Tools) {
		return "At least one tool must have defer_loading set to false."
	}
	for _, m := range p.Messages {
		for _, b := range m.Content {
			for _, name := range b.References() {
				if !deferred[name] {
					return fmt.Sprintf("Tool reference '%s' not found in available tools.", name)
				}
			}
		}
	}
	return ""
}

// References returns the tool names a tool_result block's content
// references (its tool_reference blocks), nil for other blocks.
func (b ContentBlock) References() []string {
	if b.Type != "tool_result" {
		return nil
	}
	var blocks []struct {
		Type     string `json:"type"`
		ToolName string `json:"tool_name"`
	}
	if json.Unmarshal(b.Content, &blocks) != nil {
		return nil
	}
	var names []string
	for _, c := range blocks {
		if c.Type == "tool_reference" {
			names = append(names, c.ToolName)
		}
	}
	return names
}

// promptTools splits a request's tools into those in the prompt and the
// definitions of the deferred ones by name (without defer_loading and
// cache_control), as a tool_reference expands them.
func promptTools(tools []map[string]any) (inPrompt []map[string]any, deferred map[string]any) {
	deferred = map[string]any{}
	for _, t := range tools {
		if d, _ := t["defer_loading"].(bool); d {
			def := clone(t)
			delete(def, "defer_loading")
			delete(def, "cache_control")
			name, _ := t["name"].(string)
			deferred[name] = def
			continue
		}
		inPrompt = append(inPrompt, t)
	}
	return inPrompt, deferred
}

// expand returns block with the tool_reference blocks of its content
// replaced by the definitions they reference.
func expand(block map[string]any, deferred map[string]any) map[string]any {
	if block["type"] != "tool_result" {
		return block
	}
	content, ok := block["content"].([]any)
	if !ok {
		return block
	}
	out := clone(block)
	expanded := make([]any, len(content))
	for i, c := range content {
		expanded[i] = c
		if m, ok := c.(map[string]any); ok && m["type"] == "tool_reference" {
			name, _ := m["tool_name"].(string)
			expanded[i] = map[string]any{"type": "tool_definition", "definition": deferred[name]}
		}
	}
	out["content"] = expanded
	return out
}
