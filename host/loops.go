package host

import (
	"cmp"
	"context"

	"github.com/agent-dev/agent/tools"

	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/profile"
	"github.com/agent-dev/agent/telemetry/tracecontext"
)

// newLoop builds a loop for model with the session's tool-call recorder
// (nil records nothing), asking the agent's approval. Its context window
// is the configured one, else the model's from the table of common models.
// With an answer schema, every request's system prompt ends with it and
// the loop checks the final answers against it.
func (a *agent) newLoop(model string, rec loop.Store) (*loop.Loop, error) {
	s := a.settings
	h := a.hooks
	if err := checkPriced(s.Limits, model, s.Pricer()); err != nil {
		return nil, err
	}
	fallbacks, err := a.fallbacks(a.sandbox.Prepare)
	if err != nil {
		return nil, err
	}
	cfg := loop.Config{
		Fallbacks:     fallbacks,
		Gate:          h.gateFunc(),
		AfterCall:     a.instructions.notes(a.dir, a.mcpNotes(a.backgroundNotes(a.lspNotes(a.lsp, h.afterCallFunc())))),
		BeforeStop:    h.stopFunc(hooks.Stop),
		BeforeCompact: h.compactFunc(),
		AfterCompact:  h.afterCompactFunc(),
		SummaryNote:   a.instructions.forget(a.backgroundSummaryNote()),
		Provider:      &preparingProvider{Provider: a.provider(), prepare: a.sandbox.Prepare, needs: a.needsSandbox},
		Model:         model,
		Trace:         a.trace,
		Catalog:       settledCatalog{a},
		MaxSteps:      s.MaxSteps,
		Approve:       a.approve,
		Store:         rec,
		Window:        cmp.Or(s.ContextWindow, providers.ContextWindow(model)),
		AutoCompact:   s.AutoCompact,
		ReserveOutput: s.OutputReserve(),
		Budget:        loopBudget(a.meter),
		Prepare: func(_ context.Context, _ loop.Preparing, req providers.Request) providers.Request {
			if a.answer != nil {
				req.System += a.answer.prompt() // before plan mode's, which comes and goes
			}
			return a.plan.prepare(req)
		},
	}
	if a.answer != nil {
		cfg.CheckAnswer, cfg.AnswerCorrections = a.answer.Check, s.StructuredOutputRetries
	}
	return loop.New(cfg)
}

// provider is what the agent's loops send their requests to: the
// configured server through the session's pool, or Config.Provider.
func (a *agent) provider() providers.Provider {
	if a.fixed != nil {
		return a.fixed
	}
	client := a.pool.Client()
	if a.trace != nil { // the model's server joins the request's trace
		client.Transport = tracecontext.Transport(client.Transport)
	}
	return profile.New(a.settings.Settings, a.settings.Retries(), client)
}

// fallbacks are the models a turn of the agent's loops falls back to
// (fallback_models, --fallback-model): a model of the same server is sent
// through the loop's own provider, another profile's through a provider
// of its own on the session's pool, which runs prepare before its first
// request as the loop's does. With a US dollar cap, each must be priced.
func (a *agent) fallbacks(prepare func()) ([]loop.Fallback, error) {
	s := a.settings
	out := make([]loop.Fallback, 0, len(s.Fallbacks))
	for _, fb := range s.Fallbacks {
		if err := checkPriced(s.Limits, fb.Model, s.Pricer()); err != nil {
			return nil, err
		}
		f := loop.Fallback{Model: fb.Model}
		if a.fixed == nil && (fb.BaseURL != s.BaseURL || fb.Provider != s.Provider || fb.APIKeyEnv != s.APIKeyEnv) {
			client := a.pool.Client()
			if a.trace != nil {
				client.Transport = tracecontext.Transport(client.Transport)
			}
			f.Provider = &preparingProvider{Provider: profile.New(fb, fb.Retries(), client), prepare: prepare, needs: a.needsSandbox}
		}
		out = append(out, f)
	}
	return out, nil
}

// needsSandbox reports whether a call of the tool named may run a command
// in the session's sandbox: a tool that runs commands, one the catalog
// does not know (an MCP tool that came late, say), or any tool when the
// session has hooks, which may run sandboxed around it.
func (a *agent) needsSandbox(tool string) bool {
	if a.hooks.any() {
		return true
	}
	def, ok := a.catalog.Current().Definition(tool)
	return !ok || def.Effects.Has(tools.RunsCommands)
}
