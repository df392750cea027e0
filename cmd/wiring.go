package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers/openai"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/picker"
	"github.com/agent-dev/agent/tools/shell"
)

// agent is what a run needs, built once from the settings: the working
// directory and its root, the tools and the toolset, the provider settings.
// Headless mode and the interface build their loops from it.
type agent struct {
	settings settings
	dir      string
	root     *os.Root
	registry *tools.Registry
	toolset  *picker.Toolset
}

// newAgent resolves the settings and builds the tools for dir. Close the
// returned agent's root when done.
func newAgent(o *Options, dir string, getenv func(string) string) (*agent, error) {
	s, err := resolveSettings(o, getenv)
	if err != nil {
		return nil, err
	}
	mode, err := picker.ParseMode(s.Tools)
	if err != nil {
		return nil, usageError{err}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, usagef("working directory: %w", err)
	}
	reg, err := tools.NewRegistry(append(fs.Tools(root), shell.New(shell.Config{Dir: dir, StripEnv: []string{s.APIKeyEnv}}))...)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("building the tools: %w", err)
	}
	return &agent{settings: s, dir: dir, root: root, registry: reg, toolset: picker.New(reg, mode)}, nil
}

// systemPrompt is the system prompt of a new session in the agent's
// directory.
func (a *agent) systemPrompt() string {
	return systemPrompt(a.root, a.dir, time.Now(), a.settings.Tools)
}

// newLoop builds a loop for model with the session's system prompt, its
// recorder (nil records nothing) and the approval hook.
func (a *agent) newLoop(model, system string, store loop.Store, approve loop.ApproveFunc) (*loop.Loop, error) {
	s := a.settings
	retries := s.MaxRetries
	if retries == 0 {
		retries = -1 // the adapter reads 0 as its default
	}
	return loop.New(loop.Config{
		Provider: openai.New(openai.Config{BaseURL: s.BaseURL, APIKey: s.APIKey, MaxRetries: retries, IdleTimeout: s.IdleTimeout}),
		Model:    model,
		System:   system,
		Toolset:  a.toolset,
		MaxSteps: s.MaxSteps,
		Approve:  approve,
		Store:    store,
	})
}
