package tools

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// refCycle reports a cycle of references in doc, a decoded JSON Schema
// document that the library has resolved, which never descends into the
// instance: following it, a validator checks the same value against the
// same schemas again and again. The library follows $ref without a check,
// so validating any value against such a schema overflows the stack, which
// no recover catches. The error names the cycle's schemas.
//
// The edges are the schemas applied at the same place of the instance:
// $ref and $dynamicRef (local JSON pointers, $anchor and $dynamicAnchor
// names, and URIs of $id-named schemas, resolved as the library resolves
// them; a $dynamicRef to an anchor also leads to every $dynamicAnchor of
// that name, wherever the dynamic scope ends), allOf, anyOf, oneOf, not,
// if, then, else, dependentSchemas and draft-07's dependencies. A cycle
// through properties, items and the other keywords that descend into the
// instance ends with the instance, as a tree schema's does, and is
// allowed. A cycle is refused wherever it is, in a $defs that nothing
// refers to as well, and so is a $ref this walk cannot follow to a schema
// of the document (the library has resolved them all, so none should be).
// draft7 says the document is read as draft-07 (an $id beside a $ref is
// ignored, and an $id "#name" names an anchor).
func refCycle(doc any, draft7 bool) error {
	g := &schemaGraph{draft7: draft7, nodes: map[string]any{}, bases: map[string]*url.URL{},
		resources: map[string]string{"": ""}, anchors: map[string]string{}, dynamic: map[string][]string{},
		applied: map[string][]string{}}
	g.index(doc, "", &url.URL{})
	state := map[string]int{} // 1 while on the path, 2 once every cycle through it is ruled out
	var path []string
	var visit func(ptr string) error
	visit = func(ptr string) error {
		switch state[ptr] {
		case 1:
			i := slices.Index(path, ptr)
			return fmt.Errorf("$ref cycle that never descends into the value: %s", cycleText(append(path[i:], ptr)))
		case 2:
			return nil
		}
		state[ptr] = 1
		path = append(path, ptr)
		next, err := g.inPlace(ptr)
		if err != nil {
			return err
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[ptr] = 2
		return nil
	}
	for _, ptr := range slices.Sorted(maps.Keys(g.nodes)) {
		if err := visit(ptr); err != nil {
			return err
		}
	}
	return nil
}

// schemaGraph indexes a schema document's schemas by their JSON pointers
// from the document's root ("" for the root, "/$defs/a" below it).
type schemaGraph struct {
	draft7    bool
	nodes     map[string]any      // every schema: an object, or a boolean
	bases     map[string]*url.URL // an object schema's base URI, its refs are resolved against it
	resources map[string]string   // a base URI (no fragment) to the schema it names
	anchors   map[string]string   // base URI#name to the schema of that $anchor or $dynamicAnchor
	dynamic   map[string][]string // a $dynamicAnchor name to every schema that has it
	applied   map[string][]string // a schema to its subschemas applied in place (allOf, not, ...)
}

// Keywords whose values are schemas, by shape; the inPlace ones apply to
// the instance itself, the others to a part of it.
var (
	oneSchema   = []string{"not", "if", "then", "else", "items", "additionalItems", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalProperties", "contentSchema"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaNamed = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	inPlace     = map[string]bool{"not": true, "if": true, "then": true, "else": true, "allOf": true, "anyOf": true,
		"oneOf": true, "dependentSchemas": true, "dependencies": true}
)

// index records v, the schema at ptr whose parent's base URI is base, and
// the schemas below it.
func (g *schemaGraph) index(v any, ptr string, base *url.URL) {
	g.nodes[ptr] = v
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	_, hasRef := s["$ref"]
	if id, _ := s["$id"].(string); id != "" && !(g.draft7 && hasRef) {
		if u, err := url.Parse(id); err == nil && g.draft7 && u.Fragment != "" {
			g.anchors[base.String()+"#"+strings.TrimPrefix(id, "#")] = ptr
		} else if err == nil {
			base = base.ResolveReference(u)
			g.resources[base.String()] = ptr
		}
	}
	g.bases[ptr] = base
	if a, _ := s["$anchor"].(string); a != "" && !g.draft7 {
		g.anchors[base.String()+"#"+a] = ptr
	}
	if a, _ := s["$dynamicAnchor"].(string); a != "" && !g.draft7 {
		g.anchors[base.String()+"#"+a] = ptr
		g.dynamic[a] = append(g.dynamic[a], ptr)
	}
	child := func(k, sub string, c any) {
		if isObjectOrBool(c) { // dependencies also maps names to lists of names
			p := ptr + "/" + pointerEscape(k) + sub
			if inPlace[k] {
				g.applied[ptr] = append(g.applied[ptr], p)
			}
			g.index(c, p, base)
		}
	}
	for _, k := range oneSchema {
		child(k, "", s[k])
	}
	for _, k := range schemaLists {
		l, _ := s[k].([]any)
		for i, c := range l {
			child(k, fmt.Sprintf("/%d", i), c)
		}
	}
	for _, k := range schemaNamed {
		m, _ := s[k].(map[string]any)
		for name, c := range m {
			child(k, "/"+pointerEscape(name), c)
		}
	}
}

// inPlace returns the schemas that the schema at ptr applies to the value
// it is applied to. An error is a $ref that does not lead to a schema.
func (g *schemaGraph) inPlace(ptr string) ([]string, error) {
	s, _ := g.nodes[ptr].(map[string]any)
	next := slices.Clone(g.applied[ptr])
	for _, k := range []string{"$ref", "$dynamicRef"} {
		ref, ok := s[k].(string)
		if !ok {
			continue
		}
		target, anchor, err := g.follow(ptr, ref)
		if err != nil {
			return nil, err
		}
		next = append(next, target)
		if k == "$dynamicRef" && anchor != "" {
			next = append(next, g.dynamic[anchor]...)
		}
	}
	slices.Sort(next)
	return next, nil
}

// follow returns the pointer of the schema that ref, in the schema at ptr,
// refers to, and the anchor name when ref's fragment is one.
func (g *schemaGraph) follow(ptr, ref string) (target, anchor string, err error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", "", fmt.Errorf("$ref %q at #%s: %w", ref, ptr, err)
	}
	u = g.bases[ptr].ResolveReference(u)
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	res, ok := g.resources[u.String()]
	switch {
	case ok && frag != "" && !strings.HasPrefix(frag, "/"):
		anchor = frag
		target, ok = g.anchors[u.String()+"#"+frag]
	case ok:
		target = res + frag
		_, ok = g.nodes[target]
	}
	if !ok {
		return "", "", fmt.Errorf("$ref %q at #%s does not lead to a schema of the document", ref, ptr)
	}
	return target, anchor, nil
}

func isObjectOrBool(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func cycleText(ptrs []string) string {
	out := make([]string, len(ptrs))
	for i, p := range ptrs {
		out[i] = "#" + p
	}
	return strings.Join(out, " → ")
}
