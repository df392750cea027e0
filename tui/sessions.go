package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
)

// Session is a conversation the interface shows and goes on with.
type Session struct {
	ID    string
	Title string
	// Conv is the conversation, the one copy the loop appends to and the
	// interface reads.
	Conv *conversation.Conversation
	// NewLoop builds this session's loop for a model (its recorder). It
	// does no I/O.
	NewLoop func(model string) (*loop.Loop, error)
	// Model is the model the session was recorded with, for the cost of
	// the usage its conversation already holds.
	Model string
	// Notice, when not empty, says that the session asked for was in use
	// by another process and this one is a fork of it.
	Notice string
	// Todos is the session's todo list as last written (todo_write).
	Todos []tools.Todo
}

// SessionInfo is one line of the session picker.
type SessionInfo struct {
	ID, Title string
	Updated   time.Time
	Messages  int
}

// Sessions is what the interface needs of the session store. The model
// calls it only from commands, never from Update.
type Sessions interface {
	// New starts a session in the working directory.
	New(ctx context.Context) (*Session, error)
	// Open loads a session and its conversation.
	Open(ctx context.Context, id string) (*Session, error)
	// List returns the sessions of the working directory, newest first.
	List(ctx context.Context) ([]SessionInfo, error)
}

// StoreSessions adapts the session database to Sessions. It remembers the
// sessions it created so that Cleanup can remove the ones left empty.
type StoreSessions struct {
	Store    *sessions.Store
	Dir      string
	Model    string
	Provider string
	// System returns the system prompt of a new session (it reads the
	// project's AGENTS.md, so it runs in a command).
	System func() string
	// NewLoop builds a loop for model with a recorder of tool calls.
	NewLoop func(model string, rec loop.Store) (*loop.Loop, error)

	mu      sync.Mutex
	created []string
}

var _ Sessions = (*StoreSessions)(nil)

func (s *StoreSessions) session(sess *sessions.Session, conv *conversation.Conversation) *Session {
	rec := s.Store.Recorder(sess.ID)
	return &Session{
		ID: sess.ID, Title: sess.Title, Conv: conv, Model: sess.Model,
		NewLoop: func(model string) (*loop.Loop, error) { return s.NewLoop(model, rec) },
	}
}

// New creates a session with a fresh system prompt.
func (s *StoreSessions) New(ctx context.Context) (*Session, error) {
	sess, err := s.Store.Create(ctx, sessions.NewSession{Dir: s.Dir, Provider: s.Provider, Model: s.Model, SystemPrompt: s.System()})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.created = append(s.created, sess.ID)
	s.mu.Unlock()
	return s.session(sess, conversation.New(sess.SystemPrompt, s.Store.Recorder(sess.ID))), nil
}

// Open loads session id (a unique prefix will do) with its conversation.
func (s *StoreSessions) Open(ctx context.Context, id string) (*Session, error) {
	sess, err := s.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	notice := ""
	var held *sessions.LeaseError
	switch err := s.Store.Acquire(ctx, sess.ID); {
	case errors.As(err, &held):
		fork, err := s.Store.Fork(ctx, sess.ID)
		if err != nil {
			return nil, err
		}
		notice = fmt.Sprintf("Session %s is in use by process %d: this is a new session, %s, forked from its history.",
			sess.ID, held.Holder.PID, fork.ID)
		sess = fork
	case err != nil:
		return nil, err
	}
	st, err := s.Store.Conversation(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	out := s.session(sess, conversation.Restore(st, s.Store.Recorder(sess.ID)))
	out.Notice = notice
	s.addTodos(ctx, out)
	return out, nil
}

// Adopt is session id, opened by the caller with its conversation conv, as
// a Session of the interface: created says this run created it, so that
// Cleanup deletes it should it stay empty.
func (s *StoreSessions) Adopt(ctx context.Context, id string, conv *conversation.Conversation, created bool) (*Session, error) {
	sess, err := s.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if created {
		s.mu.Lock()
		s.created = append(s.created, sess.ID)
		s.mu.Unlock()
	}
	out := s.session(sess, conv)
	s.addTodos(ctx, out)
	return out, nil
}

// addTodos gives out the session's todo list as last written.
func (s *StoreSessions) addTodos(ctx context.Context, out *Session) {
	if list, err := s.Store.Todos(ctx, out.ID); err == nil {
		for _, it := range list {
			out.Todos = append(out.Todos, tools.Todo{Content: it.Content, Status: it.Status})
		}
	}
}

// List returns the working directory's sessions that hold messages.
func (s *StoreSessions) List(ctx context.Context) ([]SessionInfo, error) {
	sums, err := s.Store.List(ctx, sessions.ListOptions{Dir: s.Dir, Limit: 200})
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, x := range sums {
		if x.Messages > 0 {
			out = append(out, SessionInfo{ID: x.ID, Title: x.Title, Updated: x.UpdatedAt, Messages: x.Messages})
		}
	}
	return out, nil
}

// Cleanup deletes the sessions this adapter created that never got a
// message, so that opening and closing the interface leaves nothing behind.
func (s *StoreSessions) Cleanup(ctx context.Context) error {
	s.mu.Lock()
	ids := append([]string(nil), s.created...)
	s.mu.Unlock()
	for _, id := range ids {
		sess, err := s.Store.Get(ctx, id)
		if err != nil {
			continue
		}
		if sess.Messages == 0 {
			if err := s.Store.Delete(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}
