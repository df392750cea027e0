// Package host opens agents and sessions for every front-end: the
// interface, a headless run, an ACP server and the Claude Agent SDK's
// protocol. Open resolves, once per process, the settings (one read of the
// config file), the data directory, the session store, the connection pool
// to the model's server and the trust and OAuth stores; OpenSession builds
// a session's agent complete (its tools, sandbox, hooks, MCP servers,
// approval and loop) for a front-end, which passes what makes it different
// as data (FrontEnd). cmd maps flags onto Config; a front-end is protocol
// glue over Session.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/memory"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/worktree"
)

// Config is what Open needs: the flags, the environment, and where the
// person hears of slow work at start.
type Config struct {
	Flags
	// Getenv reads the environment (os.Getenv; tests give their own).
	Getenv func(string) string
	// Notices, when not nil, hears what the person should know while the
	// store opens (the search index being built, once after an upgrade);
	// NoticesTTY says it is a terminal (one line updated in place).
	Notices    io.Writer
	NoticesTTY bool
	// Preconnect opens the connection to the model's server (TCP, and TLS
	// for https) in the background at Open, so that the first request does
	// not pay for it; commands that send no request leave it off.
	Preconnect bool
	// Exits says the process ends once Close returns (the agent's own
	// commands): Close then leaves the session store to the exit
	// (sessions.Store.Leave), which spares the exit SQLite's copy of the
	// write-ahead log into the database file and its two syncs. A host in
	// a process that goes on (a test, a program embedding it) leaves it
	// false.
	Exits bool
	// Provider, when not nil, answers every request of every session
	// (its subagents' too) instead of the configured server: tests give
	// providers/fake. The settings still need a model.
	Provider providers.Provider
}

// Host is what a process opens once for its front-end's sessions. Its
// methods are safe for concurrent use (ACP opens sessions side by side).
type Host struct {
	cfg Config
	// path is the config file's path; file its contents, read once.
	path string
	file fileConfig
	// settings are the resolved settings; settingsErr why they are not
	// (no model, no key): commands that need no model still run.
	settings    Settings
	settingsErr error
	// db is the session database's path, lockWait its writes' wait for
	// another process's lock; dbErr why there is none (no data
	// directory). dataDir is the database's directory, where the trust,
	// OAuth and memory files live.
	db       string
	lockWait time.Duration
	dbErr    error
	dataDir  string
	pool     *providers.Pool
	trust    *trustStore  // nil without a data directory
	oauth    *oauth.Store // nil without a data directory
	// worktrees makes and tracks the agent's git worktrees, in the data
	// directory; nil without one.
	worktrees *worktree.Manager
	// tel is the process's telemetry (nil: off), set up in the
	// background as the first session opens (startTelemetry): telReady is
	// closed once it is (nil when it is off or never started). telWarn is where its one warning goes: the last
	// session's front-end, else Config.Notices.
	tel      *telemetry.Telemetry
	telOnce  sync.Once
	telReady chan struct{}
	telWarn  atomic.Pointer[func(string)]

	storeOnce sync.Once
	opened    chan struct{} // closed once the store opened or failed to
	store     *sessions.Store
	storeErr  error
	// starting is the store as its open began (sessions.Start), set by
	// OpenStore; nil when it could not begin.
	starting *sessions.Store
}

// Open reads the config file (once for the process) and resolves the
// settings. A config file that cannot be read or parsed, or a
// db_lock_wait that is no duration, is a UsageError; settings that do not
// resolve (no model, no API key) are not: Settings and OpenSession return
// them, so that commands that need no model (agent sessions) still run.
// Close the host when done.
func Open(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.Getenv == nil {
		return nil, errors.New("host: Config.Getenv is nil")
	}
	path, explicit := cfg.ConfigPath, cfg.ConfigPath != ""
	if !explicit {
		path = defaultConfigPath(cfg.Getenv)
	}
	fc, err := loadFileConfig(path, explicit)
	if err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg, path: path, file: fc, opened: make(chan struct{}), pool: providers.NewPool(nil)}
	h.settings, h.settingsErr = resolveSettings(fc, path, &h.cfg.Flags, cfg.Getenv)
	if h.lockWait, err = lockWait(fc, path); err != nil {
		return nil, err
	}
	if h.db, h.dbErr = dbPath(fc, &h.cfg.Flags, cfg.Getenv); h.dbErr == nil {
		if abs, err := filepath.Abs(filepath.Dir(h.db)); err == nil {
			h.dataDir = abs
		}
		h.trust = &trustStore{path: filepath.Join(filepath.Dir(h.db), trustFile)}
		h.oauth = &oauth.Store{Dir: filepath.Join(filepath.Dir(h.db), oauthDir)}
	}
	if h.dataDir != "" {
		h.worktrees = newWorktrees(h.dataDir)
	}
	if cfg.Preconnect && h.settingsErr == nil {
		h.pool.Preconnect(ctx, h.settings.BaseURL)
	}
	return h, nil
}

// startTelemetry sets the telemetry up in the background, once, as the
// first session opens (commands that open none, agent sessions or doctor,
// never do), beside the store's opening and the session's building, which
// wait for it only where they use it (telemetry()). The settings' warnings
// are told; a setup that fails (an OTLP endpoint in the environment that
// is no URL) is telemetry's one warning (Setup tells it): a run is never
// stopped by its telemetry.
func (h *Host) startTelemetry(ctx context.Context) {
	h.telOnce.Do(func() {
		if h.settingsErr != nil || !h.settings.Telemetry.On() {
			for _, w := range h.settings.Telemetry.Warnings {
				h.warnTelemetry("telemetry: " + w)
			}
			return
		}
		h.telReady = make(chan struct{})
		opts := telemetry.Options{Getenv: h.cfg.Getenv, Version: Version(), Warn: h.warnTelemetry, Pricer: h.Pricer()}
		go func() {
			defer close(h.telReady)
			for _, w := range h.settings.Telemetry.Warnings {
				h.warnTelemetry("telemetry: " + w)
			}
			h.tel, _ = telemetry.Setup(context.WithoutCancel(ctx), h.settings.Telemetry, opts)
		}()
	})
}

// telemetry is the process's telemetry once it is set up; nil when it is
// off or was never started.
func (h *Host) telemetry() *telemetry.Telemetry {
	h.telOnce.Do(func() {}) // after startTelemetry's, or in place of it
	if h.telReady == nil {
		return nil
	}
	<-h.telReady
	return h.tel
}

// warnTelemetry tells the person of telemetry's one warning (a collector
// that is down, slow or refusing): in the last session's front-end, else
// on Config.Notices.
func (h *Host) warnTelemetry(msg string) {
	if w := h.telWarn.Load(); w != nil {
		(*w)(msg)
		return
	}
	if h.cfg.Notices != nil {
		fmt.Fprintln(h.cfg.Notices, "agent: "+msg)
	}
}

// OpenStore starts opening the session store in the background, so that
// it opens beside other work (ACP's initialize, a session's agent); Store
// waits for it.
func (h *Host) OpenStore(ctx context.Context) {
	h.storeOnce.Do(func() {
		ctx := context.WithoutCancel(ctx)
		st, err := h.startStore(ctx)
		h.starting = st
		go func() {
			defer close(h.opened)
			h.store, h.storeErr = finishStore(ctx, st, err)
		}()
	})
}

// storeStarting is Store without the wait: the store as its open began,
// whose queries wait for the open. Its open's error comes from Store.
func (h *Host) storeStarting(ctx context.Context) (*sessions.Store, error) {
	h.OpenStore(ctx)
	if h.starting == nil {
		return h.Store(ctx) // why it could not begin
	}
	return h.starting, nil
}

// Store returns the session store, opening it on the first call (and
// marking interrupted the sessions whose process is gone). It waits for
// an open OpenStore began, or until ctx is done. A store newer than this
// build, or no place for it, is a UsageError.
func (h *Host) Store(ctx context.Context) (*sessions.Store, error) {
	h.OpenStore(ctx)
	select {
	case <-h.opened:
		return h.store, h.storeErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close flushes the telemetry (for at most telemetry.ShutdownWait) and
// closes the session store, once it is open (leaves it, with
// Config.Exits).
func (h *Host) Close() {
	h.telWarn.Store(nil) // the front-end may be gone: the warning goes to Notices
	h.telemetry().Shutdown(context.Background())
	h.storeOnce.Do(func() { close(h.opened) }) // never opened: nothing to wait for
	<-h.opened
	switch {
	case h.store == nil:
	case h.cfg.Exits:
		h.store.Leave()
	default:
		h.store.Close()
	}
}

// Settings returns the resolved settings, or why they do not resolve (a
// UsageError that says what to set).
func (h *Host) Settings() (Settings, error) {
	return h.settings, h.settingsErr
}

// ConfigPath is the config file's path ("" when there is no config
// directory).
func (h *Host) ConfigPath() string { return h.path }

// DB is the session database's path, or why there is none.
func (h *Host) DB() (string, error) { return h.db, h.dbErr }

// OAuth is the store of the MCP servers' authorizations; nil without a
// data directory.
func (h *Host) OAuth() *oauth.Store { return h.oauth }

// RememberDomain keeps the person's "always" for web_fetch's host in the
// trust store.
func (h *Host) RememberDomain(host string) error {
	if h.trust == nil {
		return errNoDataDir
	}
	return h.trust.set(trustWeb, "", host, "", true)
}

// CanRemember reports whether answers can be kept for good (a data
// directory exists).
func (h *Host) CanRemember() bool { return h.trust != nil }

// Pricer prices models: the profile's [price] table for the configured
// model, the table of common models for any other (after a model switch).
func (h *Host) Pricer() func(model string) (providers.Price, bool) {
	return h.settings.Pricer()
}

// errNoDataDir says there is no place for the session database.
var errNoDataDir = UsageError{Err: errors.New("no place for the session database: set --db PATH or XDG_DATA_HOME")}

// Remember saves note to the memory of dir's project (MEMORY.md, in the
// data directory) and returns the file's path; without a data directory
// it is an error.
func (h *Host) Remember(dir, note string) (string, error) {
	if h.dbErr != nil {
		return "", h.dbErr
	}
	return memory.New(nil, filepath.Dir(h.db), dir).Remember(note, true)
}
