package cmd

import (
	"context"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tui"
)

// runInteractive opens the interface in the terminal. Tools that change the
// world ask the person first, unless --allow-bash or --yolo allowed them.
func runInteractive(ctx context.Context, o *Options, getenv func(string) string) error {
	dir, err := workingDir(o.Dir)
	if err != nil {
		return err
	}
	a, err := newAgent(o, dir, getenv)
	if err != nil {
		return err
	}
	defer a.root.Close()

	approver := tui.NewApprover()
	approve := func(ctx context.Context, call providers.ToolCall, _ tools.Definition) loop.Decision {
		if o.AllowBash || o.Yolo {
			return loop.Decision{Allow: true}
		}
		return approver.Ask(ctx, call)
	}
	warning := ""
	if o.Yolo {
		warning = "YOLO: commands run without asking"
	}
	return tui.Run(ctx, tui.Config{
		Model:     a.settings.Model,
		Dir:       dir,
		SessionID: newSessionID(),
		NewLoop:   func(model string) (*loop.Loop, error) { return a.newLoop(model, a.systemPrompt(), nil, approve) },
		Tools:     func() ([]string, []string) { return a.registry.Names(), a.toolset.Picked() },
		Approver:  approver,
		Prompt:    o.Prompt,
		Warning:   warning,
	})
}
