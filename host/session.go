package host

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/turn"
)

// Request names the session OpenSession opens.
type Request struct {
	// Dir is the working directory, absolute. A resumed session goes on in
	// its own directory, which its history, its system prompt and its undo
	// journal describe, wherever it is resumed from.
	Dir string
	// Continue goes on with Dir's latest session; Resume with the session
	// of that id (a unique prefix will do). Neither starts a new one.
	Continue bool
	Resume   string
	// Load is ACP's session/load: the session Resume names must have
	// worked in Dir, and one another live process holds is refused (the
	// protocol cannot answer with a fork's id). Without it such a session
	// goes on in a new one forked from its history.
	Load bool
	// Title is a new session's title ("" for none yet); AppendSystem is
	// added to a new session's system prompt.
	Title        string
	AppendSystem string
	// Schema, when not nil, is the JSON Schema the final answers of the
	// session's turns must match (--json-schema): the front-end finds the
	// accepted value in loop.Done.Structured, and a turn whose answers
	// are still rejected after the corrections ends with
	// loop.StopStructuredOutput. It holds for this opening only: it is not
	// stored, so a session continued without it answers freely again.
	Schema *AnswerSchema
	// Worktree, when not "", names the git worktree the session works in
	// (agent --worktree NAME): made from Dir's repository on branch
	// agent/NAME, or taken up again when agent made it before; Continue
	// then goes on with its latest session. At Close a worktree the session
	// made that holds no change and no new commit is removed; any other is
	// kept, and FrontEnd.Warn says where.
	Worktree string
}

// Session is a session a front-end opened: its agent in the session's
// directory (tools, sandbox, hooks, MCP servers, approval) and its
// conversation, recorded in the store. Close releases it.
type Session struct {
	h       *Host
	a       *agent
	store   *sessions.Store
	id      string
	conv    *conversation.Conversation
	resumed bool
	// notices are what the person should know of the session: that it is
	// a fork of one in use, that AGENTS.md changed in the last session.
	notices []string
	turns   *turn.Runner
	// wt is the agent worktree the session works in; nil for none.
	wt *sessionWorktree

	mu      sync.Mutex
	loop    *loop.Loop
	model   string
	closers []func()
}

// OpenSession opens the session req names (or a new one) for front-end
// fe: the store (it waits for it), the agent built complete in the
// session's directory, its MCP servers started (unless fe.MCP.Later; not
// waited for, see settledCatalog), the session's lease, its SessionStart hooks (SessionEnd's
// at Close), and a loop on the configured model. Settings that do not
// resolve, an unknown or ambiguous session, nothing to continue, or a
// directory that is gone are UsageErrors.
func (h *Host) OpenSession(ctx context.Context, req Request, fe FrontEnd) (_ *Session, err error) {
	if h.settingsErr != nil {
		return nil, h.settingsErr
	}
	if fe.Warn != nil { // telemetry's one warning goes to the newest front-end, from its set-up on
		h.telWarn.Store(&fe.Warn)
	}
	h.startTelemetry(ctx)
	// A new session's agent is built while the store opens (in the
	// background since OpenStore): nothing it does reads the store. One
	// that resumes or moves to a worktree reads it first.
	store, err := h.storeStarting(ctx)
	if err == nil && (req.Continue || req.Resume != "" || req.Worktree != "") {
		store, err = h.Store(ctx)
	}
	if err != nil {
		return nil, err
	}
	s := &Session{h: h, store: store, model: h.settings.Model}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if req.Worktree != "" {
		if req.Dir, err = s.enterWorktree(ctx, req, fe); err != nil {
			return nil, err
		}
	}
	dir, err := s.resume(ctx, req)
	if err != nil {
		return nil, err
	}
	s.adoptWorktree(dir)
	s.reportOrphans(dir, fe)
	if s.a, err = h.newAgent(ctx, dir, fe, req.Schema, store); err != nil {
		return nil, err
	}
	s.onClose(s.a.close)
	if _, err := h.Store(ctx); err != nil {
		return nil, err // the open's failure, before a server starts or anything is written
	}
	if !fe.MCP.Later {
		// The servers live as long as the session (Close stops them), not
		// as ctx: ACP's library cancels a request's context once it is
		// answered. Nothing waits for them here: the first request waits
		// for those never seen before (settledCatalog), the others are
		// offered by their last known tools.
		s.a.mcp.Start(context.WithoutCancel(ctx))
	}
	for _, svc := range s.a.services {
		if svc.notice != "" {
			s.notices = append(s.notices, svc.notice)
		}
	}
	created := s.conv == nil
	if created {
		if err := s.create(ctx, req); err != nil {
			return nil, err
		}
	}
	if s.resumed {
		s.a.reserveBackgroundIDs(s.conv.Messages())
	}
	s.recordWorktreeSession()
	s.turns = s.a.runner(store)
	if created {
		s.turns.Created(s.id, req.Title)
	}
	if s.loop, err = s.a.newLoop(s.model, store.Recorder(s.id)); err != nil {
		return nil, err
	}
	s.a.hooks.startSession(ctx, s.id, s.resumed, s.onClose)
	return s, nil
}

// resume finds the session req names, takes its lease (or forks it) and
// restores its conversation; it returns the directory the session works
// in. Without Continue or Resume it does nothing.
func (s *Session) resume(ctx context.Context, req Request) (string, error) {
	var rec *sessions.Session
	var err error
	switch {
	case req.Continue && req.Resume != "":
		return "", usagef("--continue and --resume cannot be used together")
	case req.Continue:
		if rec, err = s.store.Latest(ctx, req.Dir); err != nil {
			return "", usagef("no session to continue in %s: %w", req.Dir, err)
		}
	case req.Resume != "":
		if rec, err = s.store.Get(ctx, req.Resume); err != nil {
			return "", SessionError(err)
		}
	default:
		return req.Dir, nil
	}
	if req.Load && rec.Dir != req.Dir {
		return "", fmt.Errorf("session %s worked in %s, not in %s", rec.ID, rec.Dir, req.Dir)
	}
	var held *sessions.LeaseError
	switch err := s.store.Acquire(ctx, rec.ID); {
	case errors.As(err, &held) && !req.Load:
		fork, err := s.store.Fork(ctx, rec.ID)
		if err != nil {
			return "", err
		}
		s.notices = append(s.notices, fmt.Sprintf("session %s is in use by process %d: continuing in a new session, %s, forked from its history",
			rec.ID, held.Holder.PID, fork.ID))
		rec = fork
	case err != nil:
		return "", err
	}
	s.id, s.resumed = rec.ID, true
	s.release(ctx)
	st, err := s.store.Conversation(ctx, rec.ID)
	if err != nil {
		return "", err
	}
	s.conv = conversation.Restore(st, s.store.Recorder(rec.ID))
	if rec.Dir == req.Dir {
		return req.Dir, nil
	}
	if fi, err := os.Stat(rec.Dir); err != nil || !fi.IsDir() {
		return "", usagef("session %s worked in %s, which is no longer a directory", rec.ID, rec.Dir)
	}
	return rec.Dir, nil
}

// create creates a new session in the agent's directory with a fresh
// system prompt (req.AppendSystem after it) and req.Title.
func (s *Session) create(ctx context.Context, req Request) error {
	system := s.a.systemPrompt()
	if req.AppendSystem != "" {
		system += "\n\n" + req.AppendSystem
	}
	rec, err := s.store.Create(ctx, sessions.NewSession{
		Dir: s.a.dir, Provider: ProviderName(s.a.settings.BaseURL), Model: s.model,
		SystemPrompt: system, Title: req.Title,
	})
	if err != nil {
		return err
	}
	s.id, s.conv = rec.ID, conversation.New(system, s.store.Recorder(rec.ID))
	s.release(ctx)
	return nil
}

// release gives the session's lease back at Close, so that the next -c
// continues it at once whatever the process does after.
func (s *Session) release(ctx context.Context) {
	id := s.id
	s.onClose(func() { s.store.Release(context.WithoutCancel(ctx), id) })
}

// onClose adds fn to what Close runs; the last added runs first.
func (s *Session) onClose(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, fn)
}

// Close releases what the session opened, the last opened first: its
// SessionEnd hooks run, its lease goes back, its MCP servers, sandbox
// and root close. It may be called more than once.
func (s *Session) Close() {
	s.mu.Lock()
	cs := s.closers
	s.closers = nil
	s.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

// ID is the session's id in the store (a rewind of the conversation
// changes it to the fork's).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Dir is the directory the session works in.
func (s *Session) Dir() string { return s.a.dir }

// Resumed reports whether the session went on with a stored one (-c, -r,
// session/load), possibly a fork of it.
func (s *Session) Resumed() bool { return s.resumed }

// Conversation is the session's conversation, the one copy every reader
// shares.
func (s *Session) Conversation() *conversation.Conversation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conv
}

// Notices are what the person should know of the session, one line each:
// that it is a fork of a session in use, that AGENTS.md changed during
// the last session in its directory.
func (s *Session) Notices() []string { return s.notices }

// Warnings are the problems met reading the agent definitions, hooks,
// commands and skills, one line each.
func (s *Session) Warnings() []string { return s.a.warnings }

// Settings are the settings the session runs with.
func (s *Session) Settings() Settings { return s.a.settings }

// Turn starts a turn on prompt through the turn runner (custom commands
// and MCP prompts expanded, UserPromptSubmit hooks, mentions, the title),
// on the loop of the model in force. The channel closes after Done.
func (s *Session) Turn(ctx context.Context, p turn.Prompt) <-chan loop.Event {
	s.mu.Lock()
	l, conv := s.loop, s.conv
	s.mu.Unlock()
	return s.turns.Turn(ctx, l, conv, p)
}

// Runner is the session's turn runner, for a front-end that starts turns
// on loops of its own (the interface's session switches).
func (s *Session) Runner() *turn.Runner { return s.turns }

// Model is the model the next turn runs on.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// SetModel makes the next turns run on model ("" or "default": the
// configured one).
func (s *Session) SetModel(model string) error {
	if model == "" || model == "default" {
		model = s.a.settings.Model
	}
	l, err := s.a.newLoop(model, s.store.Recorder(s.ID()))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loop, s.model = l, model
	return nil
}

// NewLoop builds a loop of the session's agent for model recording tool
// calls through rec (the interface's sessions each have their own).
func (s *Session) NewLoop(model string, rec loop.Store) (*loop.Loop, error) {
	return s.a.newLoop(model, rec)
}

// Mode is the permission mode in force.
func (s *Session) Mode() string { return s.a.plan.get() }

// SetMode switches the permission mode: ask, auto, plan, or yolo (every
// call allowed; the sandbox stays as it was opened).
func (s *Session) SetMode(mode string) error {
	switch mode {
	case ModeAsk, ModeAuto, ModePlan, ModeYolo:
		s.a.plan.set(mode)
		return nil
	}
	return fmt.Errorf("unknown mode %q: use ask, auto or plan", mode)
}

// History is the conversation the next request carries.
func (s *Session) History() []providers.Message { return s.Conversation().Messages() }

// SystemPrompt is the system prompt of a new session in the session's
// directory (it reads AGENTS.md and the memory).
func (s *Session) SystemPrompt() string { return s.a.systemPrompt() }

// SetSystemPrompt replaces a new session's system prompt, before its
// first message: custom (the host's own, followed by how the tools are
// offered) replaces agent's, then each of appends follows. A resumed
// session, or one with messages, keeps the prompt it has: both are
// errors.
func (s *Session) SetSystemPrompt(ctx context.Context, custom string, appends ...string) error {
	if s.resumed {
		return errors.New("a continued session keeps its system prompt")
	}
	system := s.a.systemPrompt()
	if custom != "" {
		system = strings.TrimRight(custom+"\n\n"+toolsNote(s.a.settings.Tools), "\n")
	}
	for _, more := range appends {
		if more = strings.TrimSpace(more); more != "" {
			system += "\n\n" + more
		}
	}
	if err := s.conv.SetSystem(system); err != nil {
		return err
	}
	return s.store.SetSystemPrompt(ctx, s.id, system)
}

// Store is the session store the session records in.
func (s *Session) Store() *sessions.Store { return s.store }

// ProviderName is the host of a base URL, which names the provider without
// any secret.
func ProviderName(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return baseURL
}
