package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-dev/agent/commands"
	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

// Prompt is a server's prompt as a slash command.
type Prompt struct {
	// Command is the command's name without its slash:
	// mcp__SERVER__PROMPT, sanitised as tool names are (see ToolName).
	Command     string
	Server      string
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// Hint is the arguments as a command's argument hint ("<name> [style]":
// required ones in angle brackets).
func (p Prompt) Hint() string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// Prompts returns the prompts of the running servers, in server and name
// order; a snapshot.
func (m *Manager) Prompts() []Prompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Prompt
	for _, s := range m.servers {
		if s.state != StateRunning {
			continue
		}
		for _, p := range s.prompts {
			out = append(out, promptOf(s.cfg.Name, p))
		}
	}
	return out
}

func promptOf(server string, p *sdk.Prompt) Prompt {
	desc := p.Description
	if desc == "" {
		desc = p.Title
	}
	out := Prompt{Command: ToolName(server, p.Name), Server: server, Name: p.Name, Description: desc}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return out
}

// PromptText is what a prompt gave: its messages' text, and its images.
type PromptText struct {
	Text   string
	Images []tools.Image
}

// GetPrompt expands the command line "/mcp__SERVER__PROMPT ARGS": ok is
// false when the line names no prompt of a running server (a server the
// line may name that is still starting is waited for, as long as its start
// may take, or until ctx is done). The arguments
// are words (quotes keep spaces, see commands.SplitWords), each NAME=VALUE for the argument
// of that name or else the next argument in order; the last argument takes
// the rest of the line. The messages' text is joined (an assistant's
// message marked so), embedded text resources included and images kept;
// an error is a missing required argument or the server's failure.
func (m *Manager) GetPrompt(ctx context.Context, line string) (PromptText, bool, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	name = strings.TrimPrefix(name, "/")
	if !strings.HasPrefix(name, Prefix) {
		return PromptText{}, false, nil
	}
	// A server still starting may have the prompt: it is asked once it runs.
	m.awaitStarting(ctx, func(server string) bool { return strings.HasPrefix(name, Prefix+sanitize(server)+"__") })
	var s *server
	var p *sdk.Prompt
	m.mu.Lock()
	for _, o := range m.servers {
		for _, q := range o.prompts {
			if o.state == StateRunning && ToolName(o.cfg.Name, q.Name) == name {
				s, p = o, q
			}
		}
	}
	var cs *sdk.ClientSession
	if s != nil {
		cs = s.session
	}
	m.mu.Unlock()
	if p == nil || cs == nil {
		return PromptText{}, false, nil
	}
	args, err := promptArgs(p, rest)
	if err != nil {
		return PromptText{}, true, fmt.Errorf("/%s: %w", name, err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	res, err := cs.GetPrompt(cctx, &sdk.GetPromptParams{Name: p.Name, Arguments: args})
	if err != nil {
		return PromptText{}, true, fmt.Errorf("/%s: the MCP server %s: %w", name, s.cfg.Name, err)
	}
	return promptText(res), true, nil
}

// promptArgs maps a command line's words to p's arguments.
func promptArgs(p *sdk.Prompt, line string) (map[string]string, error) {
	words := commands.SplitWords(line)
	args := map[string]string{}
	next := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if k, v, ok := strings.Cut(w, "="); ok && hasArg(p, k) {
			args[k] = v
			continue
		}
		for next < len(p.Arguments) && args[p.Arguments[next].Name] != "" {
			next++
		}
		if next >= len(p.Arguments) {
			return nil, fmt.Errorf("too many arguments (it takes %d)", len(p.Arguments))
		}
		if next == len(p.Arguments)-1 { // the last argument takes the rest
			w = strings.Join(words[i:], " ")
			i = len(words)
		}
		args[p.Arguments[next].Name] = w
		next++
	}
	for _, a := range p.Arguments {
		if a.Required && args[a.Name] == "" {
			return nil, fmt.Errorf("the argument %s is required (%s)", a.Name, promptOf("", p).Hint())
		}
	}
	return args, nil
}

func hasArg(p *sdk.Prompt, name string) bool {
	for _, a := range p.Arguments {
		if a.Name == name {
			return true
		}
	}
	return false
}

// promptText joins a prompt's messages.
func promptText(res *sdk.GetPromptResult) PromptText {
	var out PromptText
	var parts []string
	for _, msg := range res.Messages {
		var text string
		switch c := msg.Content.(type) {
		case *sdk.TextContent:
			text = c.Text
		case *sdk.ImageContent:
			if img, err := media.Fit(c.Data, media.Default); err == nil {
				out.Images = append(out.Images, tools.Image{MediaType: img.MediaType, Data: img.Data})
				text = fmt.Sprintf("[image %d: %s]", len(out.Images), img.Note())
			} else {
				text = fmt.Sprintf("[image %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
			}
		case *sdk.EmbeddedResource:
			text = describeResource(c.Resource)
		case *sdk.ResourceLink:
			text = fmt.Sprintf("[resource link %s (%s)]", c.URI, c.MIMEType)
		default:
			text = fmt.Sprintf("[%T content, not shown]", c)
		}
		if msg.Role == "assistant" {
			text = "(assistant) " + text
		}
		parts = append(parts, text)
	}
	out.Text = strings.Join(parts, "\n\n")
	return out
}

// listPrompts fetches the prompt list (every page) of a server that offers
// prompts.
func (s *server) listPrompts(ctx context.Context) error {
	cs := s.currentSession()
	if cs == nil || cs.InitializeResult() == nil || cs.InitializeResult().Capabilities.Prompts == nil {
		return nil
	}
	var all []*sdk.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing prompts: %w", err)
		}
		all = append(all, p)
	}
	s.m.mu.Lock()
	s.prompts = all
	s.m.mu.Unlock()
	return nil
}

// currentSession is the server's session, nil when not connected.
func (s *server) currentSession() *sdk.ClientSession {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.session
}
