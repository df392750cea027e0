// Package picker decides which tool definitions the model sees. In pick mode
// the first request offers pick_tools plus a one-line brief (name and
// description title, no parameters) of every other tool; the tools the model
// picks carry their full description and JSON schema from the next request
// on. In all mode every tool is offered in full from the start.
package picker

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Mode says how tools are offered to the model.
type Mode string

// The modes of a Toolset.
const (
	// ModePick offers briefs and pick_tools first, full schemas once picked.
	ModePick Mode = "pick"
	// ModeAll offers every full schema from the start.
	ModeAll Mode = "all"
)

// ParseMode returns the Mode named s, or an error naming the valid modes.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModePick, ModeAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown tools mode %q: use pick or all", s)
}

// PickToolsName is the name of the tool that picks tools.
const PickToolsName = "pick_tools"

//go:embed pick_tools.md
var pickToolsDescription string

const pickToolsSchema = `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"]}`

// Offer is one tool as it appears in a request. Schema is nil for a brief.
type Offer struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Toolset is the set of tools of a session and, in pick mode, which of them
// the model has picked during the current turn. It is not safe for
// concurrent use; the loop owns it.
type Toolset struct {
	reg    *tools.Registry
	mode   Mode
	picked map[string]bool
	pick   tools.Tool
}

// New returns a Toolset over the tools of reg. The registry must not contain
// a tool named pick_tools.
func New(reg *tools.Registry, mode Mode) *Toolset {
	s := &Toolset{reg: reg, mode: mode, picked: map[string]bool{}}
	s.pick = pickTool{s}
	return s
}

// Mode returns the toolset's mode.
func (s *Toolset) Mode() Mode { return s.mode }

// Offers returns the tool definitions for the next request, sorted by name,
// with pick_tools first in pick mode.
func (s *Toolset) Offers() []Offer {
	var offers []Offer
	if s.mode == ModePick {
		d := s.pick.Definition()
		offers = append(offers, Offer{Name: d.Name, Description: d.Description, Schema: d.Schema})
	}
	for _, name := range s.reg.Names() {
		t, _ := s.reg.Get(name)
		d := t.Definition()
		if s.mode == ModeAll || s.picked[name] {
			offers = append(offers, Offer{Name: name, Description: d.Description, Schema: d.Schema})
		} else {
			offers = append(offers, Offer{Name: name, Description: d.Brief()})
		}
	}
	return offers
}

// Picked returns the names of the tools picked in this turn, sorted. In all
// mode every tool counts as picked.
func (s *Toolset) Picked() []string {
	if s.mode == ModeAll {
		return s.reg.Names()
	}
	names := make([]string, 0, len(s.picked))
	for n := range s.picked {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Pick marks the named tools as picked. It returns the names that were newly
// picked and the names that are not tools of this set.
func (s *Toolset) Pick(names ...string) (added, unknown []string) {
	for _, n := range names {
		switch _, ok := s.reg.Get(n); {
		case !ok:
			unknown = append(unknown, n)
		case !s.picked[n] && s.mode == ModePick:
			s.picked[n] = true
			added = append(added, n)
		}
	}
	return added, unknown
}

// Reset forgets what was picked; the loop calls it when a turn ends.
func (s *Toolset) Reset() { clear(s.picked) }

// Resolve finds the tool a call names and validates the call's arguments
// against the tool's full schema. Calling a tool that was only shown as a
// brief picks it; when its arguments are invalid the error includes the
// schema so the model can retry correctly. The error text is meant for the
// model.
func (s *Toolset) Resolve(name, args string) (tools.Tool, json.RawMessage, error) {
	if name == PickToolsName && s.mode == ModePick {
		raw, err := validatePick(args)
		return s.pick, raw, err
	}
	t, ok := s.reg.Get(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown tool %q; the tools are: %s", name, strings.Join(s.names(), ", "))
	}
	wasBrief := s.mode == ModePick && !s.picked[name]
	s.Pick(name)
	raw, err := s.reg.Validate(name, args)
	if err != nil && wasBrief {
		return t, nil, fmt.Errorf("%w\nThe parameter schema of %s is: %s", err, name, t.Definition().Schema)
	}
	return t, raw, err
}

// names lists every callable name, pick_tools included in pick mode.
func (s *Toolset) names() []string {
	names := s.reg.Names()
	if s.mode == ModePick {
		names = append([]string{PickToolsName}, names...)
	}
	return names
}

func validatePick(args string) (json.RawMessage, error) {
	var in struct {
		Names []string `json:"names"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return nil, fmt.Errorf(`pick_tools arguments must be {"names": ["tool", ...]}: %v`, err)
	}
	if len(in.Names) == 0 {
		return nil, fmt.Errorf(`pick_tools needs at least one name: {"names": ["tool", ...]}`)
	}
	return json.RawMessage(args), nil
}

// pickTool is the pick_tools tool bound to its toolset.
type pickTool struct{ s *Toolset }

func (p pickTool) Definition() tools.Definition {
	return tools.Definition{
		Name:        PickToolsName,
		Description: pickToolsDescription,
		Schema:      json.RawMessage(pickToolsSchema),
		ReadOnly:    true,
	}
}

// Run picks the named tools. Unknown names make an error result that lists
// the valid ones; the known names are picked all the same.
func (p pickTool) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var in struct {
		Names []string `json:"names"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Errorf("pick_tools: %v", err), nil
	}
	added, unknown := p.s.Pick(in.Names...)
	picked := p.s.Picked()
	res := tools.Result{Meta: map[string]any{"added": added, "picked": picked}}
	var b strings.Builder
	if len(picked) > 0 {
		fmt.Fprintf(&b, "Picked: %s. Their full schemas are in your tool list now; call them directly.", strings.Join(picked, ", "))
	}
	if len(unknown) > 0 {
		res.IsError = true
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Unknown tool names: %s. The tools are: %s.", strings.Join(unknown, ", "), strings.Join(p.s.reg.Names(), ", "))
	}
	res.Content = b.String()
	return res, nil
}
