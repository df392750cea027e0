package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-dev/agent/loop"
)

// Config is what Serve needs.
type Config struct {
	// In and Out are the client's side of the connection (the process's
	// standard input and output); nothing else may write to Out.
	In  io.Reader
	Out io.Writer
	// Log receives the connection's diagnostics (standard error).
	Log io.Writer
	// Backend opens the sessions.
	Backend Backend
	// Name and Version describe the agent in initialize's agentInfo.
	Name, Version string
	// Images is whether prompts may carry images (the model takes them).
	Images bool
}

// Serve answers the client on cfg.In and cfg.Out until the client closes
// its side or ctx is cancelled; then every session's turn is cancelled
// and its session closed before Serve returns.
func Serve(ctx context.Context, cfg Config) error {
	go warmJSON()
	s := &server{cfg: cfg, sessions: map[string]*liveSession{}}
	// The library starts reading in NewAgentSideConnection, before it has
	// set the connection's own fields and before s.conn is set: a client
	// fast enough had its first request handled on a half-built
	// connection (a data race). Nothing is read until both are complete.
	ready := make(chan struct{})
	conn := sdk.NewAgentSideConnection(s, cfg.Out, gatedReader{ready: ready, r: newLineGuard(cfg.In, cfg.Log)})
	if cfg.Log != nil {
		conn.SetLogger(slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	s.conn = conn
	close(ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	s.closeAll()
	return nil
}

// server is the agent side of one connection.
type server struct {
	cfg  Config
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	fs       sdk.FileSystemCapabilities
	sessions map[string]*liveSession
	closed   bool
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
)

// liveSession is a session the connection serves: the backend's and the
// cancel function of its running turn.
type liveSession struct {
	Session
	cwd string

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil between turns
	// ended is closed when the running turn's events are all read; nil
	// between turns.
	ended chan struct{}
}

// Initialize answers the client's capabilities with the agent's.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.fs = p.ClientCapabilities.Fs
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: s.cfg.Images},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is never needed: keys come from the environment and the
// configuration.
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession creates a session in the client's cwd.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	req, err := s.sessionRequest(p.Cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	sess, err := s.cfg.Backend.NewSession(ctx, req)
	if err != nil {
		return sdk.NewSessionResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	ls := s.add(sess, req.Cwd)
	s.afterSetup(ls)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.ID()), Modes: modeState(sess.Mode())}, nil
}

// LoadSession opens a stored session and replays its conversation as
// session/update notifications before it answers.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	req, err := s.sessionRequest(p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if ls := s.get(string(p.SessionId)); ls != nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "session " + string(p.SessionId) + " is already open"})
	}
	sess, err := s.cfg.Backend.LoadSession(ctx, string(p.SessionId), req)
	if err != nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ls := s.add(sess, req.Cwd)
	for _, u := range replay(sess, req.Cwd) {
		if err := s.update(ctx, sess.ID(), u); err != nil {
			return sdk.LoadSessionResponse{}, err
		}
	}
	s.afterSetup(ls)
	return sdk.LoadSessionResponse{Modes: modeState(sess.Mode())}, nil
}

// sessionRequest checks a session's cwd and converts its MCP servers.
func (s *server) sessionRequest(cwd string, servers []sdk.McpServer) (SessionRequest, error) {
	if !filepath.IsAbs(cwd) {
		return SessionRequest{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", cwd)})
	}
	ms, err := mcpServers(servers)
	if err != nil {
		return SessionRequest{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return SessionRequest{Cwd: filepath.Clean(cwd), MCPServers: ms, Client: client{s}}, nil
}

// afterSetup tells the client the commands a session takes, once it
// knows the session, and again whenever they change (a CommandWatcher's
// MCP server that started after the session did brings its prompts).
func (s *server) afterSetup(ls *liveSession) {
	var mu sync.Mutex // one update at a time, each with the list as it is then
	last := ""
	send := func() {
		go func() {
			mu.Lock()
			defer mu.Unlock()
			u := availableCommands(ls.Session)
			key, _ := json.Marshal(u)
			if string(key) == last {
				return
			}
			last = string(key)
			_ = s.update(context.Background(), ls.ID(), u)
		}()
	}
	if w, ok := ls.Session.(CommandWatcher); ok {
		w.WatchCommands(send)
	}
	send()
}

// add registers a session; after the connection closed it is closed at
// once.
func (s *server) add(sess Session, cwd string) *liveSession {
	ls := &liveSession{Session: sess, cwd: cwd}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		sess.Close()
		return ls
	}
	s.sessions[sess.ID()] = ls
	return ls
}

func (s *server) get(id string) *liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// closeAll cancels every turn and closes every session.
func (s *server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions, s.closed = map[string]*liveSession{}, true
	s.mu.Unlock()
	for _, ls := range all {
		ls.stopAndClose()
	}
}

// stopAndClose cancels the running turn, waits until it has ended (its
// tools stopped), and closes the session.
func (ls *liveSession) stopAndClose() {
	ls.mu.Lock()
	ended := ls.ended
	if ls.cancel != nil {
		ls.cancel()
	}
	ls.mu.Unlock()
	if ended != nil {
		<-ended
	}
	ls.Close()
}

// stop cancels the running turn, if any.
func (ls *liveSession) stop() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.cancel != nil {
		ls.cancel()
	}
}

// Prompt runs a turn and answers with how it ended once it has; its
// updates stream meanwhile. A prompt while one runs cancels it and
// starts once it has ended.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ls := s.get(string(p.SessionId))
	if ls == nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(p.SessionId)})
	}
	prompt, err := toPrompt(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ls.mu.Lock()
	for ls.cancel != nil {
		// A prompt while one runs takes over, as the client means it
		// (Zed sends session/cancel and the next prompt at once; the
		// connection cancels the running prompt's context): the running
		// turn is cancelled, and this one starts once it has ended.
		running := ls.ended
		ls.cancel()
		ls.mu.Unlock()
		select {
		case <-running:
		case <-ctx.Done():
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		ls.mu.Lock()
	}
	ended := make(chan struct{})
	ls.cancel, ls.ended = cancel, ended
	ls.mu.Unlock()
	defer func() {
		ls.mu.Lock()
		ls.cancel, ls.ended = nil, nil
		ls.mu.Unlock()
		close(ended)
	}()
	tr := newTranslator(ls.Session, ls.cwd)
	// Updates go out until the turn's last one, also once it was
	// cancelled: ACP has the agent send a cancelled turn's final updates
	// (its calls' ends) before the prompt answers cancelled.
	sendCtx := context.WithoutCancel(ctx)
	var done loop.Done
	var sendErr error
	for ev := range ls.Turn(ctx, prompt) {
		if d, ok := ev.(loop.Done); ok {
			done = d
			continue
		}
		for _, u := range tr.updates(ev) {
			if sendErr == nil {
				if sendErr = s.update(sendCtx, ls.ID(), u); sendErr != nil {
					cancel() // the client is gone
				}
			}
		}
	}
	// Calls the turn left unfinished end failed before the answer.
	why := "not run: the turn was cancelled"
	if done.Reason != loop.StopCancelled {
		why = "not run: the turn ended before it"
	}
	for _, u := range tr.unfinished(why) {
		if sendErr == nil {
			sendErr = s.update(sendCtx, ls.ID(), u)
		}
	}
	if done.Reason == loop.StopBudget && done.Err != nil && sendErr == nil {
		// ACP has no stop reason for a spend cap: the answer says why (a
		// client gone by now gets the prompt's response all the same).
		_ = s.update(sendCtx, ls.ID(), sdk.UpdateAgentMessageText("\n\nStopped: "+done.Err.Error()+"."))
	}
	return promptResponse(done)
}

// promptResponse maps how a turn ended to the prompt's answer; a failed
// turn is a JSON-RPC error carrying the reason.
func promptResponse(d loop.Done) (sdk.PromptResponse, error) {
	switch d.Reason {
	case loop.StopAnswered:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case loop.StopCancelled:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case loop.StopMaxSteps, loop.StopBudget: // ACP has no reason for a spend cap
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case loop.StopMaxTokens, loop.StopContextFull:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case loop.StopRefused:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	err := d.Err
	if err == nil {
		err = errors.New("the turn failed")
	}
	return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// Cancel stops the session's running turn; its prompt answers cancelled.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if ls := s.get(string(p.SessionId)); ls != nil {
		ls.stop()
	}
	return nil
}

// SetSessionMode switches a session's permission mode.
func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ls := s.get(string(p.SessionId))
	if ls == nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(p.SessionId)})
	}
	if err := ls.SetMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession cancels a session's turn and releases it.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s.mu.Lock()
	ls := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if ls != nil {
		ls.stopAndClose()
	}
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions is not offered (sessionCapabilities.list is not declared).
func (s *server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession is not offered; session/load is.
func (s *server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not offered: no config options are declared.
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// update sends one session/update notification.
func (s *server) update(ctx context.Context, id string, u sdk.SessionUpdate) error {
	return s.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
}
