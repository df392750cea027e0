package picker

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools"
)

//go:embed pick_tools_load.md
var pickToolsLoadDescription string

// deferredOffers are pick mode's offers: pick_tools with the index of every
// tool, then every tool in full, deferred unless it is picked but not
// loaded.
func (c *Catalog) deferredOffers(picked, loaded []string) []Offer {
	d := pickDefinition(ModePick)
	offers := []Offer{{Name: d.Name, Description: strings.TrimSpace(d.Description) + c.loadIndex(), Schema: d.Schema}}
	for _, name := range c.reg.Names() {
		t, _ := c.reg.Get(name)
		def := t.Definition()
		deferred := !slices.Contains(picked, name) || slices.Contains(loaded, name)
		offers = append(offers, Offer{Name: name, Description: def.Description, Schema: def.Schema, Deferred: deferred})
	}
	return offers
}

// loadIndex lists every tool for pick_tools' description in pick mode: a
// line with the brief of each tool that is not indexed by name, then the
// indexed tools (an MCP server's) by name, grouped by the prefix before
// their last "__". It does not depend on the picks, so the description
// never changes in a session.
func (c *Catalog) loadIndex() string {
	var b strings.Builder
	var indexed []string
	for _, n := range c.reg.Names() {
		if c.indexed[n] {
			indexed = append(indexed, n)
			continue
		}
		t, _ := c.reg.Get(n)
		fmt.Fprintf(&b, "\n%s: %s", n, t.Definition().Brief())
	}
	if len(indexed) > 0 {
		b.WriteString("\nBy full name (prefix + name):" + byPrefix(indexed))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nTools:" + b.String()
}

// loadedDefinition is a tool's definition as a pick_tools result delivers
// it: the shape of a function in an OpenAI tools array.
type loadedDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// load picks names in pick mode and returns the result that loads the
// definitions of the tools it picked for the first time: their JSON (one
// loadedDefinition a line) in Content and their names in References.
// Names picked before are only named (their definitions are loaded
// already); unknown names make the result an error that lists the tools,
// and the known names are loaded all the same.
func (p pickTool) load(names []string) tools.Result {
	before := p.picks.Picked()
	unknown := p.c.pick(p.picks, names...)
	var added, again []string
	for _, n := range names {
		switch _, ok := p.c.reg.Get(n); {
		case !ok, slices.Contains(added, n), slices.Contains(again, n):
		case slices.Contains(before, n):
			again = append(again, n)
		default:
			added = append(added, n)
		}
	}
	slices.Sort(added)
	res := tools.Result{References: added, Meta: map[string]any{"added": added, "picked": p.c.Full(p.picks.Picked())}}
	var b strings.Builder
	if len(added) > 0 {
		fmt.Fprintf(&b, "Loaded %s; call them directly. Their definitions:", strings.Join(added, ", "))
		for _, n := range added {
			b.WriteString("\n")
			b.Write(p.c.definitionJSON(n))
		}
	}
	if len(again) > 0 {
		line(&b, fmt.Sprintf("Loaded before (see above, or your tool list): %s.", strings.Join(again, ", ")))
	}
	if len(unknown) > 0 {
		res.IsError = true
		line(&b, fmt.Sprintf("Unknown tool names: %s. The tools are: %s.", strings.Join(unknown, ", "), strings.Join(p.c.reg.Names(), ", ")))
	}
	res.Content = b.String()
	return res
}

// line writes s to b on a line of its own.
func line(b *strings.Builder, s string) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(s)
}

// definitionJSON is the loadedDefinition of the tool named, compact and
// without HTML escaping.
func (c *Catalog) definitionJSON(name string) []byte {
	t, _ := c.reg.Get(name)
	d := t.Definition()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(loadedDefinition{Name: d.Name, Description: d.Description, Parameters: d.Schema}); err != nil {
		return fmt.Appendf(nil, `{"name":%q}`, d.Name) // a schema that is not JSON; the registry rejects those
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
