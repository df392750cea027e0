package host

import (
	"context"
	"path/filepath"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// A service is a capability that lives with each session: the host opens
// it while it builds the session's agent and closes it with the session.
// Today the project's memory, the AGENTS.md watch and the interface's idle
// notification are services; the next capabilities (OpenTelemetry, spend
// caps, background processes, checkpoints, language servers) are meant to
// be too: a new one is its own package, an entry in services and, when it
// has settings, a section of the config file.
type service func(env serviceEnv) (sessionService, error)

// services are the per-session services, in the order they open (they
// close in the reverse order). The order is the order of their tools in
// the catalog and of their sections in the system prompt.
func services() []service {
	return []service{telemetryService, checkpointService, backgroundService, memoryService, lspService, agentsMDService, idleService}
}

// serviceEnv is what a service may use of the session being opened.
type serviceEnv struct {
	ctx   context.Context
	h     *Host
	a     *agent // built but for the services' tools and the catalog
	fe    FrontEnd
	store *sessions.Store
}

// sessionService is what a service adds to a session; every part is
// optional.
type sessionService struct {
	// tools join the built-in tools, as one pick group.
	tools []tools.Tool
	// prompt is a section of a new session's system prompt ("" for none).
	prompt func() string
	// notice is what the person should know as the session opens, and
	// status its short form for a status line.
	notice, status string
	// observe is called as each turn starts; see turn.Runner.Observe.
	observe func(ctx context.Context, t turn.Start) (context.Context, func(loop.Event))
	// close releases what the service opened.
	close func()
}

// openServices opens the services for the agent being built, closing those
// already open when one fails.
func openServices(env serviceEnv) ([]sessionService, error) {
	var open []sessionService
	for _, svc := range services() {
		s, err := svc(env)
		if err != nil {
			closeServices(open)
			return nil, err
		}
		open = append(open, s)
	}
	return open, nil
}

// closeServices closes ss, the last opened first.
func closeServices(ss []sessionService) {
	for i := len(ss) - 1; i >= 0; i-- {
		if ss[i].close != nil {
			ss[i].close()
		}
	}
}

// observeTurns is the turn runner's Observe of the services that observe
// turns, each in the order they opened; nil when none does.
func observeTurns(ss []sessionService) func(context.Context, turn.Start) (context.Context, func(loop.Event)) {
	var obs []func(context.Context, turn.Start) (context.Context, func(loop.Event))
	for _, s := range ss {
		if s.observe != nil {
			obs = append(obs, s.observe)
		}
	}
	if len(obs) == 0 {
		return nil
	}
	return func(ctx context.Context, t turn.Start) (context.Context, func(loop.Event)) {
		var sees []func(loop.Event)
		for _, o := range obs {
			var see func(loop.Event)
			if ctx, see = o(ctx, t); see != nil {
				sees = append(sees, see)
			}
		}
		if len(sees) == 0 {
			return ctx, nil
		}
		return ctx, func(ev loop.Event) {
			for _, see := range sees {
				see(ev)
			}
		}
	}
}

// telemetryService traces the session's turns, requests and tool calls,
// its subagents' included, when telemetry is on (see package telemetry):
// it counts the session and gives the agent's loops their Tracer (the
// session's front-end hears telemetry's one warning: OpenSession).
func telemetryService(env serviceEnv) (sessionService, error) {
	tel := env.h.telemetry()
	if tel == nil {
		return sessionService{}, nil
	}
	env.a.trace = tel.Session(env.ctx, telemetry.Session{Frontend: env.fe.Name, Provider: env.a.settings.Provider})
	return sessionService{}, nil
}

// memoryService is the project's memory, kept beside the session
// database: the memory tools (memory_search and memory_get, read-only;
// memory_write, approved like a file change), the system prompt's
// <memory> section, and, in the interface, the background embedding of
// past sessions (a headless run sends no request but its turn's).
func memoryService(env serviceEnv) (sessionService, error) {
	a, s := env.a, env.a.settings
	a.memory = memory.New(env.store, filepath.Dir(env.store.Path()), a.dir)
	if e := s.Memory.Embedder(s.BaseURL, s.APIKey); e != nil {
		a.memory.UseEmbeddings(e)
	}
	svc := sessionService{tools: memory.Tools(a.memory), prompt: a.memory.Prompt}
	if env.fe.Interactive {
		svc.close = a.memory.StartEmbedding(context.WithoutCancel(env.ctx))
	}
	return svc, nil
}

// agentsMDService watches the session directory's AGENTS.md: it says when
// the file changed during the last session there (an agent may have
// written what steers the next), and records its state as this session
// ends.
func agentsMDService(env serviceEnv) (sessionService, error) {
	notice, watch := env.h.watchAgentsMD(env.a.root, env.a.dir)
	svc := sessionService{notice: notice, close: watch.finish}
	if notice != "" {
		svc.status = agentsMDShortNotice
	}
	return svc, nil
}

// idleService tells the Notification hooks of each wait of the interface
// for a prompt longer than idle_notification after a turn ended.
func idleService(env serviceEnv) (sessionService, error) {
	if !env.fe.Interactive {
		return sessionService{}, nil
	}
	n := newIdleNotifier(env.a.hooks, env.a.settings.IdleNotification)
	if n == nil {
		return sessionService{}, nil
	}
	return sessionService{observe: n.observe, close: n.close}, nil
}
