package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/sessions"
)

// session is the session a run goes on: its record and its conversation,
// which records itself in the store.
type session struct {
	record *sessions.Session
	conv   *conversation.Conversation
	// notice, when not empty, tells the person that the session they
	// asked for is in use and the run goes on in a fork of it.
	notice string
}

// resumeSession returns the session named by --continue (the latest of dir)
// or --resume ID with its conversation, or nil when the run starts a new
// one. An unknown or ambiguous id, or nothing to continue, is a usage error.
// A session has one writer at a time: when another live process holds it,
// the run goes on in a new session forked from its history, and the
// session's notice says so.
func resumeSession(ctx context.Context, store *sessions.Store, o *Options, dir string) (*session, error) {
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
	notice := ""
	var held *sessions.LeaseError
	switch err := store.Acquire(ctx, sess.ID); {
	case errors.As(err, &held):
		fork, err := store.Fork(ctx, sess.ID)
		if err != nil {
			return nil, err
		}
		notice = fmt.Sprintf("session %s is in use by process %d: continuing in a new session, %s, forked from its history",
			sess.ID, held.Holder.PID, fork.ID)
		sess = fork
	case err != nil:
		return nil, err
	}
	st, err := store.Conversation(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	return &session{record: sess, conv: conversation.Restore(st, store.Recorder(sess.ID)), notice: notice}, nil
}

// newSession creates a session for a first prompt in dir.
func newSession(ctx context.Context, store *sessions.Store, a *agent, model, system, prompt string) (*session, error) {
	sess, err := store.Create(ctx, sessions.NewSession{
		Dir: a.dir, Provider: providerName(a.settings.BaseURL), Model: model,
		SystemPrompt: system, Title: sessions.TitleFromPrompt(prompt),
	})
	if err != nil {
		return nil, err
	}
	return &session{record: sess, conv: conversation.New(system, store.Recorder(sess.ID))}, nil
}

// providerName is the host of a base URL, which names the provider without
// any secret.
func providerName(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return baseURL
}

// sessionDir is the directory a run works in: a resumed session goes on in
// its own directory, which its history, its system prompt and its undo
// journal describe, wherever it was resumed from.
func sessionDir(s *session, dir string) (string, error) {
	if s == nil || s.record.Dir == dir {
		return dir, nil
	}
	if fi, err := os.Stat(s.record.Dir); err != nil || !fi.IsDir() {
		return "", usagef("session %s worked in %s, which is no longer a directory", s.record.ID, s.record.Dir)
	}
	return s.record.Dir, nil
}

// openSession opens the session database, finds the session a run goes on
// (nil for a new one; see resumeSession) and builds the agent in the
// directory the run works in: dir, or a resumed session's own. The caller
// closes the store and the agent's root and sandbox.
func openSession(ctx context.Context, o *Options, getenv func(string) string, dir string) (*agent, *sessions.Store, *session, error) {
	pool := preconnect(ctx, o, getenv)
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
		a, err = newAgent(o, dir, getenv, pool)
		if err == nil {
			if err = a.addMemory(store); err != nil {
				a.root.Close()
				a.sandbox.Close()
			}
		}
	}
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	return a, store, conv, nil
}
