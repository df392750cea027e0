// Package sdkstream speaks the Claude Agent SDK's protocol (npm
// @anthropic-ai/claude-agent-sdk, which starts its executable with
// --input-format stream-json --output-format stream-json --verbose): one
// JSON object a line each way. Standard input carries user messages (a
// turn each, queued) and control requests (initialize, interrupt,
// set_permission_mode, set_model; others are answered with an error);
// standard output carries the SDK's messages (system init, assistant
// messages with Anthropic content blocks, user messages with tool results,
// stream_event partials, a result ending every turn) and the agent's own
// control requests: can_use_tool, the approval question. It is a front-end
// like the interface: turns start through the Config's Turn (cmd's turn
// runner) and approvals reach CanUseTool through cmd's asker.
package sdkstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// Config is what a Server needs.
type Config struct {
	// In is the host's side (standard input), read until EOF; Out gets
	// the messages, one JSON object a line.
	In  io.Reader
	Out io.Writer
	// Warn reports a line the host sent that is not understood (stderr).
	Warn func(string)
	// Init describes the session in the system init message.
	Init Init
	// Partial streams stream_event messages (--include-partial-messages).
	Partial bool
	// Turn starts a turn (cmd's turn runner on the session's loop).
	Turn func(ctx context.Context, p turn.Prompt) <-chan loop.Event
	// SetMode switches the permission mode (the SDK's names: default,
	// acceptEdits, bypassPermissions, plan); an error is the control
	// request's error.
	SetMode func(mode string) error
	// SetModel switches the model of the next turns ("" the default).
	SetModel func(model string) error
	// SetSystemPrompt, when not nil, is given the initialize request's
	// systemPrompt (the host's own prompt, its parts joined; "" keeps
	// agent's) and appendSystemPrompt (text added after it), when either
	// is set. An error is warned about: initialize still succeeds.
	SetSystemPrompt func(custom, appendText string) error
	// Price is the price of a model's tokens, for total_cost_usd and
	// modelUsage (ok false, or a nil Price: the model's use costs 0).
	Price providers.Pricer
	// ReplayUserMessages echoes each user message read back on Out with
	// its uuid (--replay-user-messages: the SDK's SDKUserMessageReplay).
	ReplayUserMessages bool
	// RewindFiles, when not nil, answers rewind_files (the SDK's
	// enableFileCheckpointing): the files go back to the checkpoint of the
	// prompt whose uuid is userMessageID; a dry run only says what would
	// change. Nil: rewind_files answers that checkpointing is off.
	RewindFiles func(ctx context.Context, userMessageID string, dryRun bool) (FilesRewound, error)
}

// Init is the system init message's description of the session.
type Init struct {
	SessionID, Model, Cwd, PermissionMode, Version string
	Tools, MCPServers                              []string
	// SlashCommands are the custom commands and the skills the person may
	// invoke, without their slash; Agents the agent definitions' names;
	// Skills the skills' names.
	SlashCommands, Agents, Skills []string
}

// Server is one run of the protocol. Its methods are safe for concurrent
// use.
type Server struct {
	cfg Config
	enc *json.Encoder
	wmu sync.Mutex // one line at a time on Out

	mu      sync.Mutex
	cancel  context.CancelFunc // the running turn's
	pending map[string]chan controlResponse
	nextID  int
	eof     bool
	// queue is the user messages not yet run, as many as the host sends
	// (reading standard input never waits on a turn); wake tells Run one
	// was added or input ended.
	queue []turn.Prompt
	wake  chan struct{}
	model string // the session's model: Init.Model, then set_model's

	// totals are every model's use in the run (the session's turns and
	// their subagents), written by the goroutine that runs the turns.
	totals *providers.Spend
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	enc := json.NewEncoder(cfg.Out)
	enc.SetEscapeHTML(false)
	if cfg.Warn == nil {
		cfg.Warn = func(string) {}
	}
	return &Server{cfg: cfg, enc: enc, pending: map[string]chan controlResponse{}, wake: make(chan struct{}, 1),
		model: cfg.Init.Model, totals: providers.NewSpend(cfg.Price)}
}

// Run reads the host's lines until EOF, runs every user message's turn in
// order (first, when not nil, before them: a prompt given on the command
// line), and returns once the last has ended. A cancelled ctx cancels the
// running turn and ends the run. The error is a failed write of Out or a
// failed read of In.
func (s *Server) Run(ctx context.Context, first *turn.Prompt) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	readErr := make(chan error, 1)
	if first != nil {
		s.enqueue(*first)
	}
	go func() { readErr <- s.read(ctx) }()
	initSent := false
	var werr error
	for {
		p, ok := s.dequeue()
		if !ok {
			break
		}
		if werr != nil {
			continue
		}
		if !initSent {
			initSent = true
			if werr = s.write(s.initMessage()); werr != nil {
				stop()
				continue
			}
		}
		if werr = s.runTurn(ctx, p); werr != nil {
			stop()
		}
	}
	if werr != nil {
		return fmt.Errorf("writing output: %w", werr)
	}
	return <-readErr
}

// enqueue adds a user message's turn to the queue.
func (s *Server) enqueue(p turn.Prompt) {
	s.mu.Lock()
	s.queue = append(s.queue, p)
	s.mu.Unlock()
	s.signal()
}

// signal wakes Run's wait for the queue.
func (s *Server) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// dequeue waits for the next queued turn; ok is false once standard
// input has ended and the queue is empty.
func (s *Server) dequeue() (p turn.Prompt, ok bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			p = s.queue[0]
			s.queue[0] = turn.Prompt{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return p, true
		}
		eof := s.eof
		s.mu.Unlock()
		if eof {
			return turn.Prompt{}, false
		}
		<-s.wake
	}
}

// read reads the host's lines; at EOF it ends the queue and withdraws
// the pending control requests.
func (s *Server) read(ctx context.Context) error {
	defer func() {
		s.mu.Lock()
		s.eof = true
		for id, ch := range s.pending {
			close(ch)
			delete(s.pending, id)
		}
		s.mu.Unlock()
		s.signal()
	}()
	sc := bufio.NewScanner(s.cfg.In)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		s.handle(ctx, sc.Bytes())
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading standard input: %w", err)
	}
	return nil
}

// inbound is one line from the host.
type inbound struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	Message   json.RawMessage `json:"message"`
	// UUID is a user message's id (the SDK's SDKUserMessage.uuid), which
	// its prompt's checkpoint is known by.
	UUID string `json:"uuid"`
}

// handle dispatches one line.
func (s *Server) handle(ctx context.Context, line []byte) {
	var in inbound
	if err := json.Unmarshal(line, &in); err != nil {
		s.cfg.Warn(fmt.Sprintf("ignoring a line of standard input that is not JSON: %v", err))
		return
	}
	switch in.Type {
	case "user":
		p, err := userPrompt(in.Message)
		if err != nil {
			s.cfg.Warn("ignoring a user message: " + err.Error())
			return
		}
		p.ID = promptID(in.UUID)
		if s.cfg.ReplayUserMessages {
			_ = s.write(s.replay(in.Message, p.ID))
		}
		s.enqueue(p)
	case "control_request":
		s.control(ctx, in.RequestID, in.Request)
	case "control_response":
		s.deliver(in.Response)
	case "control_cancel_request", "keep_alive", "update_environment_variables":
	default:
		s.cfg.Warn(fmt.Sprintf("ignoring a message of type %q", in.Type))
	}
}

// control answers one of the host's control requests.
func (s *Server) control(ctx context.Context, id string, raw json.RawMessage) {
	var req struct {
		Subtype string `json:"subtype"`
		Mode    string `json:"mode"`
		Model   string `json:"model"`
		// initialize's: the SDK's options.systemPrompt (a string, or its
		// parts) and the preset's append.
		SystemPrompt       json.RawMessage `json:"systemPrompt"`
		AppendSystemPrompt string          `json:"appendSystemPrompt"`
		// rewind_files'.
		UserMessageID string `json:"user_message_id"`
		DryRun        bool   `json:"dry_run"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		s.respondErr(id, "bad control request: "+err.Error())
		return
	}
	var err error
	var resp map[string]any
	switch req.Subtype {
	case "initialize":
		if custom := promptText(req.SystemPrompt); s.cfg.SetSystemPrompt != nil && (custom != "" || req.AppendSystemPrompt != "") {
			if serr := s.cfg.SetSystemPrompt(custom, req.AppendSystemPrompt); serr != nil {
				s.cfg.Warn("the host's system prompt is not used: " + serr.Error())
			}
		}
		resp = map[string]any{"commands": []any{}, "agents": []any{}, "output_style": "default",
			"available_output_styles": []string{"default"}, "models": []any{}, "account": map[string]any{}}
	case "interrupt":
		s.interrupt()
	case "rewind_files":
		resp = s.rewindFiles(ctx, req.UserMessageID, req.DryRun)
	case "set_permission_mode":
		err = s.cfg.SetMode(req.Mode)
	case "set_model":
		if err = s.cfg.SetModel(req.Model); err == nil {
			s.mu.Lock()
			s.model = req.Model
			if s.model == "" || s.model == "default" {
				s.model = s.cfg.Init.Model
			}
			s.mu.Unlock()
		}
	default:
		err = fmt.Errorf("unsupported control request: %s", req.Subtype)
	}
	if err != nil {
		s.respondErr(id, err.Error())
		return
	}
	_ = s.write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": resp}})
}

func (s *Server) respondErr(id, msg string) {
	_ = s.write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": msg}})
}

// interrupt cancels the running turn, if any.
func (s *Server) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// write writes one message.
func (s *Server) write(v any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.enc.Encode(v)
}

// controlResponse is the host's answer to one of the agent's requests.
type controlResponse struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// deliver hands a control response to the request waiting for it.
func (s *Server) deliver(raw json.RawMessage) {
	var r controlResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		s.cfg.Warn("ignoring a bad control response: " + err.Error())
		return
	}
	s.mu.Lock()
	ch, ok := s.pending[r.RequestID]
	delete(s.pending, r.RequestID)
	s.mu.Unlock()
	if ok {
		ch <- r
	}
}

// request sends a control request and waits for its response, ctx, or
// the end of standard input.
func (s *Server) request(ctx context.Context, req map[string]any) (controlResponse, error) {
	s.mu.Lock()
	if s.eof {
		s.mu.Unlock()
		return controlResponse{}, errors.New("standard input is closed: nobody can answer")
	}
	s.nextID++
	id := "agent-" + strconv.Itoa(s.nextID)
	ch := make(chan controlResponse, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	if err := s.write(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		return controlResponse{}, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return controlResponse{}, errors.New("standard input closed before the answer")
		}
		if r.Subtype == "error" {
			return r, errors.New(r.Error)
		}
		return r, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		_ = s.write(map[string]any{"type": "control_cancel_request", "request_id": id})
		return controlResponse{}, ctx.Err()
	}
}

// promptText is initialize's systemPrompt as one text: a string as it is,
// a list of strings joined by blank lines; "" for anything else (absent,
// null, the preset's object).
func promptText(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return strings.TrimSpace(one)
	}
	var parts []string
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}
