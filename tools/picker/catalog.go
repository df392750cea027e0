// Package picker decides which tool definitions the model sees. There are
// three modes.
//
// In pick mode (the default) the tools of a request never change in a
// session, so the provider's prefix cache (which begins with the tool
// definitions) is never invalidated by a pick. Every tool is offered
// deferred (providers.ToolDefinition.Deferred) beside pick_tools, whose
// description indexes them: a one-line brief of each of the agent's own
// tools, the names of an MCP server's. A pick_tools call loads the
// definitions of the tools it names where its result sits: the result
// carries them as JSON (name, description, parameters) and references them
// (tools.Result.References), so that an adapter whose vendor defers tools
// natively (Anthropic's defer_loading and tool_reference) sends references
// and the others send the JSON. Only a compaction, which drops the results
// that delivered them, brings picked tools into the tools array in full.
//
// In swap mode (the behaviour before pick mode deferred tools) the first
// request offers pick_tools plus a one-line brief (name and description
// title, no parameters) of every other tool; the tools the model picks
// carry their full description and JSON schema from the next request on,
// for the rest of the session (the picks live in the session, see Picks),
// so the tools of a request change when a tool is picked for the first
// time. Tools can be picked in groups: picking one tool of a group picks
// all of it, because every change to the tools makes the provider read the
// whole conversation again at the uncached price. When nothing is left to
// pick, pick_tools is no longer offered.
//
// In all mode every tool is offered in full from the start. (BENCHMARKS.md
// compares the modes on a reading and an editing session.)
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

// The modes of a Catalog.
const (
	// ModePick offers every tool deferred and pick_tools, which loads
	// definitions in its result; the tools never change in a session.
	ModePick Mode = "pick"
	// ModeSwap offers briefs and pick_tools first, full schemas in the
	// tools once picked.
	ModeSwap Mode = "swap"
	// ModeAll offers every full schema from the start.
	ModeAll Mode = "all"
)

// Modes lists the modes, the default first.
func Modes() []Mode { return []Mode{ModePick, ModeSwap, ModeAll} }

// ParseMode returns the Mode named s, or an error naming the valid modes.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModePick, ModeSwap, ModeAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown tools mode %q: use pick, swap or all", s)
}

// PickToolsName is the name of the tool that picks tools.
const PickToolsName = "pick_tools"

//go:embed pick_tools.md
var pickToolsDescription string

const pickToolsSchema = `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"]}`

// Offer is one tool as it appears in a request. Schema is nil for a brief.
// Deferred marks a tool offered in full but deferred (pick mode): its
// definition must stay out of the request's prefix (see
// providers.ToolDefinition.Deferred).
type Offer struct {
	Name        string
	Description string
	Schema      json.RawMessage
	Deferred    bool
}

// Picks is where a session keeps the tools the model picked, read through
// snapshots (conversation.Conversation implements it). It must be safe for
// concurrent use.
type Picks interface {
	// Picked returns the picked names, sorted; a snapshot.
	Picked() []string
	// Pick adds names and returns those that were not picked before.
	Pick(names ...string) (added []string)
}

// Catalog is the tools of a run and how they are offered. It is immutable
// once built and safe for concurrent use: what changes (the picks) lives in
// the session's Picks and is passed in.
type Catalog struct {
	reg     *tools.Registry
	mode    Mode
	group   map[string][]string // a grouped tool's name -> its group's names
	indexed map[string]bool     // tools listed by name in pick_tools' index until picked
}

// New returns a Catalog over the tools of reg. The registry must not
// contain a tool named pick_tools. Each of groups names tools that are
// picked together; a tool in no group is picked alone. Names that are not
// tools of reg are ignored.
func New(reg *tools.Registry, mode Mode, groups ...[]string) *Catalog {
	c := &Catalog{reg: reg, mode: mode, group: map[string][]string{}}
	for _, g := range groups {
		var names []string
		for _, n := range g {
			if _, ok := reg.Get(n); ok {
				names = append(names, n)
			}
		}
		for _, n := range names {
			c.group[n] = names
		}
	}
	return c
}

// Mode returns the catalog's mode.
func (c *Catalog) Mode() Mode { return c.mode }

// Names returns the names of the tools, sorted, without pick_tools.
func (c *Catalog) Names() []string { return c.reg.Names() }

// Offers returns the tool definitions for a request, sorted by name, with
// pick_tools first where it is offered. picked is the session's picks;
// loaded the tools whose definitions the request's messages deliver (the
// References of its tool results). In pick mode every tool is deferred
// except a picked one that is not loaded (a compaction dropped the result
// that loaded it), so the offers change only then; in swap mode they
// depend on picked alone. Requests with the same picks and loaded tools
// carry byte-identical tools.
func (c *Catalog) Offers(picked, loaded []string) []Offer {
	if c.mode == ModePick {
		return c.deferredOffers(picked, loaded)
	}
	var offers []Offer
	if c.mode == ModeSwap && len(c.Full(picked)) < len(c.reg.Names()) {
		d := pickDefinition(c.mode)
		offers = append(offers, Offer{Name: d.Name, Description: d.Description + c.index(picked), Schema: d.Schema})
	}
	for _, name := range c.reg.Names() {
		t, _ := c.reg.Get(name)
		d := t.Definition()
		switch {
		case c.mode == ModeAll || slices.Contains(picked, name):
			offers = append(offers, Offer{Name: name, Description: d.Description, Schema: d.Schema})
		case !c.indexed[name]:
			offers = append(offers, Offer{Name: name, Description: d.Brief()})
		}
	}
	return offers
}

// WithIndex returns a copy of c in which the tools named are not offered
// as briefs in swap mode, and are indexed by name alone in pick mode: until picked, they are listed by name alone at
// the end of pick_tools' description, grouped by the prefix before their
// last "__" (an MCP server's tools: mcp__github__: create_issue, ...).
// Dozens of tools then cost a few bytes each rather than a definition
// each.
func (c *Catalog) WithIndex(names ...string) *Catalog {
	cp := *c
	cp.indexed = map[string]bool{}
	for _, n := range names {
		if _, ok := c.reg.Get(n); ok {
			cp.indexed[n] = true
		}
	}
	return &cp
}

// index is the list of indexed tools not yet picked, for pick_tools'
// description; "" when there is none.
func (c *Catalog) index(picked []string) string {
	var names []string
	for _, n := range c.reg.Names() {
		if c.indexed[n] && !slices.Contains(picked, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "\n\nMore tools, not shown above; pick them by full name (prefix + name):" + byPrefix(names)
}

// byPrefix lists names grouped by the prefix before their last "__", a
// line each ("\nmcp__github__: create_issue, list_prs"), the groups in the
// order of their first name.
func byPrefix(names []string) string {
	var prefixes []string
	groups := map[string][]string{}
	for _, n := range names {
		prefix, rest := "", n
		if i := strings.LastIndex(n, "__"); i > 0 {
			prefix, rest = n[:i+2], n[i+2:]
		}
		if groups[prefix] == nil {
			prefixes = append(prefixes, prefix)
		}
		groups[prefix] = append(groups[prefix], rest)
	}
	var b strings.Builder
	for _, p := range prefixes {
		fmt.Fprintf(&b, "\n%s: %s", p, strings.Join(groups[p], ", "))
	}
	return b.String()
}

// Full returns the names offered with their full schema given the picked
// names, sorted: every tool in all mode, the picked tools of this catalog
// in pick and swap mode.
func (c *Catalog) Full(picked []string) []string {
	if c.mode == ModeAll {
		return c.reg.Names()
	}
	var names []string
	for _, n := range c.reg.Names() {
		if slices.Contains(picked, n) {
			names = append(names, n)
		}
	}
	return names
}

// pick adds the names that are tools of this catalog, and in swap mode
// their groups, to picks (in pick and swap mode) and returns the names that
// are not tools.
func (c *Catalog) pick(picks Picks, names ...string) (unknown []string) {
	var known []string
	picked := picks.Picked()
	for _, n := range names {
		switch _, ok := c.reg.Get(n); {
		case !ok:
			unknown = append(unknown, n)
		case slices.Contains(picked, n):
		case c.group[n] != nil && c.mode == ModeSwap:
			known = append(known, c.group[n]...)
		default:
			known = append(known, n)
		}
	}
	if c.mode != ModeAll && len(known) > 0 {
		picks.Pick(known...)
	}
	return unknown
}

// Definition returns the definition of the tool called name (pick_tools
// included, in every mode: a session recorded in pick mode may be resumed
// in all mode); ok is false for a name the catalog lacks (a server's tool
// that is gone).
func (c *Catalog) Definition(name string) (def tools.Definition, ok bool) {
	if name == PickToolsName {
		return pickDefinition(c.mode), true
	}
	if t, ok := c.reg.Get(name); ok {
		return t.Definition(), true
	}
	return tools.Definition{}, false
}

// Resolve finds the tool a call names and validates the call's arguments
// against the tool's full schema. In swap mode calling a tool that was only
// shown as a brief picks it; in pick mode a call picks nothing (a pick
// would not load the definition, see Offers). When the arguments are
// invalid, the error includes the schema so the model can retry correctly
// (in swap mode for a tool shown as a brief, in pick mode always: the
// tools array never carries the schema). The error text is meant for the
// model.
//
// The pick_tools tool it returns picks into picks.
func (c *Catalog) Resolve(name, args string, picks Picks) (tools.Tool, json.RawMessage, error) {
	if name == PickToolsName && c.mode != ModeAll {
		raw, err := validatePick(args)
		return pickTool{c, picks}, raw, err
	}
	t, ok := c.reg.Get(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown tool %q; the tools are: %s", name, strings.Join(c.names(), ", "))
	}
	withSchema := c.mode == ModePick || c.mode == ModeSwap && !slices.Contains(picks.Picked(), name)
	if c.mode == ModeSwap {
		c.pick(picks, name)
	}
	raw, err := c.reg.Validate(name, args)
	if err != nil && withSchema {
		return t, nil, fmt.Errorf("%w\nThe parameter schema of %s is: %s", err, name, t.Definition().Schema)
	}
	return t, raw, err
}

// Compile compiles the argument schema of the tool called name ahead of
// Resolve (tools.Registry.Compile): the loop calls it in the background as
// a call's name streams. pick_tools and unknown names do nothing.
func (c *Catalog) Compile(name string) {
	if name == PickToolsName && c.mode != ModeAll {
		return
	}
	c.reg.Compile(name)
}

// names lists every callable name, pick_tools included in pick mode.
func (c *Catalog) names() []string {
	names := c.reg.Names()
	if c.mode != ModeAll {
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

// pickTool is the pick_tools tool bound to its catalog and a session's
// picks.
type pickTool struct {
	c     *Catalog
	picks Picks
}

func (p pickTool) Definition() tools.Definition { return pickDefinition(p.c.mode) }

// pickDefinition is pick_tools' definition in mode, without the index.
func pickDefinition(mode Mode) tools.Definition {
	desc := pickToolsDescription
	if mode == ModePick {
		desc = pickToolsLoadDescription
	}
	return tools.Definition{
		Name:        PickToolsName,
		Description: desc,
		Schema:      json.RawMessage(pickToolsSchema),
		ReadOnly:    true,
		Effects:     tools.ReadsWorkspace,
		Kind:        tools.KindThink,
		Summarize:   summarizePick,
		// It changes the next request's tools: it runs alone, and
		// front-ends show it as a note.
		ChangesToolset: true,
	}
}

// summarizePick reads a pick_tools call as the names it picks.
func summarizePick(args string) tools.Summary {
	var in struct {
		Names []string `json:"names"`
	}
	if json.Unmarshal([]byte(args), &in) != nil || len(in.Names) == 0 {
		return tools.DefaultSummary(args)
	}
	return tools.Summary{Title: strings.Join(in.Names, ", "), Full: tools.PrettyJSON(args)}
}

// Run picks the named tools. Unknown names make an error result that lists
// Run picks the named tools. Unknown names make an error result that lists
// the valid ones; the known names are picked all the same. In pick mode the
// result loads the definitions of the tools it newly picks (see load).
func (p pickTool) Run(_ context.Context, call tools.Call) (tools.Result, error) {
	var in struct {
		Names []string `json:"names"`
	}
	if err := json.Unmarshal(call.Args, &in); err != nil {
		return tools.Errorf("pick_tools: %v", err), nil
	}
	if p.c.mode == ModePick {
		return p.load(in.Names), nil
	}
	before := p.picks.Picked()
	unknown := p.c.pick(p.picks, in.Names...)
	picked := p.c.Full(p.picks.Picked())
	var added []string
	for _, n := range picked {
		if !slices.Contains(before, n) {
			added = append(added, n)
		}
	}
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
		fmt.Fprintf(&b, "Unknown tool names: %s. The tools are: %s.", strings.Join(unknown, ", "), strings.Join(p.c.reg.Names(), ", "))
	}
	res.Content = b.String()
	return res, nil
}
