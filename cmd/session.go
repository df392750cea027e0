package cmd

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// conversation is the session a run goes on and what it already holds.
type conversation struct {
	session *sessions.Session
	history []providers.Message
}

// resumeSession returns the session named by --continue (the latest of dir)
// or --resume ID with its history, or nil when the run starts a new one.
// An unknown or ambiguous id, or nothing to continue, is a usage error.
func resumeSession(ctx context.Context, store *sessions.Store, o *Options, dir string) (*conversation, error) {
	var sess *sessions.Session
	var err error
	switch {
	case o.Continue && o.Resume != "":
		return nil, usagef("--continue and --resume cannot be used together")
	case o.Continue:
		if sess, err = store.Latest(ctx, dir); err != nil {
			return nil, usagef("no session to continue in %s: %w", dir, err)
		}
	case o.Resume == resumePick:
		return nil, nil // the interface opens its picker
	case o.Resume != "":
		if sess, err = store.Get(ctx, o.Resume); err != nil {
			return nil, sessionError(err)
		}
	default:
		return nil, nil
	}
	history, err := store.Messages(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	return &conversation{session: sess, history: history}, nil
}

// newSession creates a session for a first prompt in dir.
func newSession(ctx context.Context, store *sessions.Store, a *agent, model, system, prompt string) (*conversation, error) {
	sess, err := store.Create(ctx, sessions.NewSession{
		Dir: a.dir, Provider: providerName(a.settings.BaseURL), Model: model,
		SystemPrompt: system, Title: sessions.TitleFromPrompt(prompt),
	})
	if err != nil {
		return nil, err
	}
	return &conversation{session: sess}, nil
}

// providerName is the host of a base URL, which names the provider without
// any secret.
func providerName(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return baseURL
}

// checkFits fails when the conversation, estimated at 4 bytes a token, no
// longer fits the model's context window (from context_window in the
// config, else the table of common models; unknown windows pass).
// Compaction is not built yet, so a new session is the way on.
func checkFits(window int, model, system string, history []providers.Message, prompt string) error {
	if window <= 0 {
		window = providers.ContextWindow(model)
	}
	if window <= 0 {
		return nil
	}
	size := len(system) + len(prompt)
	for _, m := range history {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case providers.Text:
				size += len(p.Text)
			case providers.ToolCall:
				size += len(p.Name) + len(p.Arguments)
			case providers.ToolResult:
				size += len(p.Content)
			}
		}
	}
	if tokens := size / 4; tokens > window {
		return fmt.Errorf("the conversation (about %d tokens) no longer fits %s's context window of %d tokens: start a new session (compaction is not built yet)", tokens, model, window)
	}
	return nil
}

// sessionDir is the directory a run works in: a resumed session goes on in
// its own directory, which its history, its system prompt and its undo
// journal describe, wherever it was resumed from.
func sessionDir(conv *conversation, dir string) (string, error) {
	if conv == nil || conv.session.Dir == dir {
		return dir, nil
	}
	if fi, err := os.Stat(conv.session.Dir); err != nil || !fi.IsDir() {
		return "", usagef("session %s worked in %s, which is no longer a directory", conv.session.ID, conv.session.Dir)
	}
	return conv.session.Dir, nil
}

// openSession opens the session database, finds the session a run goes on
// (nil for a new one; see resumeSession) and builds the agent in the
// directory the run works in: dir, or a resumed session's own. The caller
// closes the store and the agent's root and sandbox.
func openSession(ctx context.Context, o *Options, getenv func(string) string, dir string) (*agent, *sessions.Store, *conversation, error) {
	store, err := openStore(ctx, o, getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	conv, err := resumeSession(ctx, store, o, dir)
	if err == nil {
		dir, err = sessionDir(conv, dir)
	}
	var a *agent
	if err == nil {
		a, err = newAgent(o, dir, getenv)
	}
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	return a, store, conv, nil
}
