package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server's request for information from the person
// (elicitation/create, MCP 2025-11-25): in form mode a message and the
// fields of its flat schema; in URL mode a message and the page the
// person is asked to open in a browser (a login with a third party, a
// payment), whose answer carries no values.
type Elicitation struct {
	// Server is the configured name of the server that asks.
	Server  string
	Message string
	// Fields are the schema's properties, the required ones first, each
	// group in name order (a decoded schema keeps no order).
	Fields []Field
	// URL is a URL-mode request's page: an absolute http or https URL
	// (others are declined before anyone is asked). Empty in form mode.
	URL string
}

// Field is one property of an elicitation's schema.
type Field struct {
	Name, Title, Description string
	// Type is the JSON Schema type: string, number, integer, boolean or
	// array (a multiple choice of Enum).
	Type     string
	Required bool
	// Default is the schema's default (SEP-1034), nil when it has none.
	Default any
	// Enum are the allowed values of a choice (enum, oneOf/anyOf consts,
	// or an array's items), EnumNames their titles when given.
	Enum      []string
	EnumNames []string
	// Format is a string's format (email, uri, date, date-time).
	Format string
}

// The actions of an elicitation's answer (MCP ElicitResult.action).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitAnswer is the person's answer to an Elicitation.
type ElicitAnswer struct {
	// Action is ElicitAccept, ElicitDecline or ElicitCancel.
	Action string
	// Values are the fields the person gave, as typed (strings) or typed
	// values; on accept, the fields left out take their defaults and
	// strings are converted to the field's type.
	Values map[string]any
}

// ElicitFunc asks the person an Elicitation and returns the answer. It
// blocks until answered and returns ctx's error when ctx is cancelled (the
// server cancelled, or the manager closed).
type ElicitFunc func(ctx context.Context, e Elicitation) (ElicitAnswer, error)

// elicit answers a server's elicitation/create: a form is asked through
// Options.Elicit; without one (a headless run has nobody to ask) it is
// declined, or accepted with its defaults for a server with
// ElicitDefaults. A URL-mode request goes to elicitURL.
func (s *server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	ask := s.m.opts.Elicit
	if p != nil && (p.Mode == "url" || (p.Mode == "" && p.URL != "")) {
		return s.elicitURL(ctx, p)
	}
	if p == nil || (p.Mode != "" && p.Mode != "form") || (ask == nil && !s.cfg.ElicitDefaults) {
		return &sdk.ElicitResult{Action: ElicitDecline}, nil
	}
	fields, err := schemaFields(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("elicitation of %s: %w", s.cfg.Name, err)
	}
	if ask == nil { // headless, told to take the defaults
		content, err := FormContent(fields, nil)
		if err != nil {
			return &sdk.ElicitResult{Action: ElicitDecline}, nil
		}
		return &sdk.ElicitResult{Action: ElicitAccept, Content: content}, nil
	}
	ans, err := ask(ctx, Elicitation{Server: s.cfg.Name, Message: p.Message, Fields: fields})
	if err != nil {
		return nil, err
	}
	if ans.Action != ElicitAccept {
		if ans.Action != ElicitCancel {
			ans.Action = ElicitDecline
		}
		return &sdk.ElicitResult{Action: ans.Action}, nil
	}
	content, err := FormContent(fields, ans.Values)
	if err != nil {
		return nil, fmt.Errorf("elicitation of %s: %w", s.cfg.Name, err)
	}
	return &sdk.ElicitResult{Action: ElicitAccept, Content: content}, nil
}

// FormContent is the content of an accepted form: each field's value,
// converted to its type (a string "42" for an integer field becomes 42, a
// comma-separated string for an array field a list), and, as SEP-1034
// says, the default of every field the person left out. An error names a
// value that does not convert, or a required field left without value
// and without default.
func FormContent(fields []Field, values map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range fields {
		v, given := values[f.Name]
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" && f.Type != "string" {
			given = false
		}
		if !given {
			if f.Default != nil {
				out[f.Name] = f.Default
			} else if f.Required {
				return nil, fmt.Errorf("%s is required", f.Name)
			}
			continue
		}
		cv, err := convertValue(f, v)
		if err != nil {
			return nil, err
		}
		out[f.Name] = cv
	}
	return out, nil
}

// convertValue converts a typed string to f's type; other values pass.
func convertValue(f Field, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	s = strings.TrimSpace(s)
	switch f.Type {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s takes a whole number, not %q", f.Name, s)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s takes a number, not %q", f.Name, s)
		}
		return n, nil
	case "boolean":
		switch strings.ToLower(s) {
		case "true", "yes", "y", "1":
			return true, nil
		case "false", "no", "n", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%s takes yes or no, not %q", f.Name, s)
	case "array":
		var items []string
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, f.choice(it))
			}
		}
		return items, nil
	}
	if len(f.Enum) > 0 {
		return f.choice(s), nil
	}
	return v, nil
}

// choice is the enum value the person meant: the value itself, or the
// value whose title was typed.
func (f Field) choice(s string) string {
	for i, n := range f.EnumNames {
		if strings.EqualFold(n, s) && i < len(f.Enum) {
			return f.Enum[i]
		}
	}
	return s
}

// schemaProp is the part of a property's schema a form uses.
type schemaProp struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Default     any      `json:"default"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	Format      string   `json:"format"`
	OneOf       []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	AnyOf []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"anyOf"`
	Items *schemaProp `json:"items"`
}

// schemaFields reads the fields of a requested schema (any value that
// encodes as a JSON Schema object).
func schemaFields(schema any) ([]Field, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("reading the requested schema: %w", err)
	}
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if string(raw) != "null" {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("reading the requested schema: %w", err)
		}
		// The SDK checks the answer against the schema: one whose
		// references loop would overflow the validator's stack, which
		// ends the process, so it is refused before anyone is asked.
		if _, err := tools.CompileSchema(raw); err != nil {
			return nil, fmt.Errorf("the requested schema: %w", err)
		}
	}
	var fields []Field
	for name, p := range s.Properties {
		f := Field{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Default: p.Default,
			Required: slices.Contains(s.Required, name), Format: p.Format}
		f.Enum, f.EnumNames = choices(p)
		if p.Items != nil && len(f.Enum) == 0 {
			f.Enum, f.EnumNames = choices(*p.Items)
		}
		fields = append(fields, f)
	}
	slices.SortFunc(fields, func(a, b Field) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return fields, nil
}

// choices are the values and titles a property allows.
func choices(p schemaProp) (values, names []string) {
	if len(p.Enum) > 0 {
		return p.Enum, p.EnumNames
	}
	for _, o := range append(p.OneOf, p.AnyOf...) {
		values, names = append(values, o.Const), append(names, o.Title)
	}
	return values, names
}

// elicitURL answers a URL-mode elicitation/create (MCP 2025-11-25): the
// person is asked, through Options.Elicit, whether to open the page; the
// answer's action goes back (accept once they agreed; the server learns
// of the outcome by its own means). It is declined without asking where
// URL mode is not declared (Options.ElicitURL), and for a URL that is not
// an absolute http or https one: a server must not have a person open
// another scheme, or a page with credentials in its address.
func (s *server) elicitURL(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	ask := s.m.opts.Elicit
	if ask == nil || !s.m.opts.ElicitURL {
		return &sdk.ElicitResult{Action: ElicitDecline}, nil
	}
	if why := badElicitURL(p.URL); why != "" {
		if w := s.m.opts.Warn; w != nil {
			w(fmt.Sprintf("MCP server %s asked to open %q, which was declined: %s", s.cfg.Name, tools.OneLine(p.URL), why))
		}
		return &sdk.ElicitResult{Action: ElicitDecline}, nil
	}
	ans, err := ask(ctx, Elicitation{Server: s.cfg.Name, Message: p.Message, URL: p.URL})
	if err != nil {
		return nil, err
	}
	switch ans.Action {
	case ElicitAccept, ElicitCancel:
		return &sdk.ElicitResult{Action: ans.Action}, nil
	}
	return &sdk.ElicitResult{Action: ElicitDecline}, nil
}

// badElicitURL says why raw is no page to open ("" when it is one): not
// an absolute http or https URL with a host, or one carrying a user name
// or password.
func badElicitURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "not an http or https URL"
	case u.Host == "":
		return "no host"
	case u.User != nil:
		return "credentials in the URL"
	}
	return ""
}
