package host

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/checkpoint"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/turn"
)

// checkpoints takes a checkpoint of the session's working directory as
// each prompt is submitted (the subagents' included: before each child's
// work), and the tree as each turn ends, so a rewind can tell the files
// the person changed between turns from the agent's.
type checkpoints struct {
	store    *checkpoint.Store
	sessions *sessions.Store
	warn     func(string)
	once     sync.Once     // warn of the first failure only
	off      atomic.Bool   // set when the directory has too many files
	taken    atomic.Int64  // the checkpoints taken: their refs' names are unique
	swept    chan struct{} // closed once the sweep as the session opened ended
	// aheadTaken, when not nil, is called after each checkpoint taken
	// ahead of a turn's end (tests).
	aheadTaken func()
	// hooked is whether hooks run around tool calls (commands that may
	// change files, whatever the call).
	hooked bool
	// byCalls takes a turn's checkpoints after its prompt's from the files
	// its calls wrote (Store.TakeChanged) while only file tools that name
	// them changed files, else by a full read; the store has no watch.
	byCalls bool
	// saved holds the ids of the sessions a checkpoint of which was
	// recorded (begin), as keys.
	saved sync.Map
}

// recorded reports whether a checkpoint of session was recorded by this
// process: its undo restores checkpoints, not the undo journal.
func (c *checkpoints) recorded(session string) bool {
	_, ok := c.saved.Load(session)
	return ok
}

// checkpointService opens the project's checkpoint store when checkpoints
// are on ([checkpoints] enabled) and the sessions are stored on disk.
// Without git, or when the store cannot be made, the session runs without
// checkpoints and its notice says so.
func checkpointService(env serviceEnv) (sessionService, error) {
	s := env.a.settings.Checkpoints
	if !s.Enabled || env.h.dataDir == "" {
		return sessionService{}, nil
	}
	// A headless run (-p) is one turn: what changes after its prompt's
	// checkpoint is what its calls wrote (byCalls), and a watch would cost
	// more than it saves (its start's listing, and the kernel's teardown
	// of its inotify instance, which the exit waits for).
	byCalls := env.fe.Name == "headless"
	cs, err := checkpoint.Open(env.ctx, checkpointsRoot(env.store), env.a.dir, checkpoint.Options{MaxFileBytes: s.MaxFileBytes, Watch: !byCalls,
		Exclude: env.a.protect.Paths().ReadDenied})
	if err != nil {
		return sessionService{notice: "checkpoints are off: " + err.Error()}, nil
	}
	c := &checkpoints{store: cs, sessions: env.store, warn: env.fe.warn, swept: make(chan struct{}), hooked: env.a.hooks.aroundCalls(), byCalls: byCalls}
	env.a.checkpoints = c
	env.a.children.runner.Observe = c.observeChild
	ctx, cancel := context.WithCancel(context.WithoutCancel(env.ctx))
	warmed := cs.Warm(ctx)
	go func() {
		defer close(c.swept)
		c.sweep(ctx)
	}()
	return sessionService{observe: c.observe, close: func() {
		cancel()
		warmed()
		<-c.swept
		// The watch's end is the kernel's teardown of its inotify
		// instance, which waits out a grace period (7 ms here): it goes
		// on beside the rest of the session's close (the sandbox, the
		// database), and the process's exit waits for it. No checkpoint
		// is taken after this.
		go cs.Close()
	}}, nil
}

// sweepEvery is how often a project's checkpoint store is compared with
// the session database: a deleted session's checkpoints are only disk
// space, and the comparison a query at every start.
const sweepEvery = time.Hour

// sweep forgets the checkpoints of the project's sessions that were
// deleted (agent sessions rm, prune, the interface's picker), whichever
// process deleted them, at most every sweepEvery.
func (c *checkpoints) sweep(ctx context.Context) {
	if !c.store.SweepDue(sweepEvery) {
		return
	}
	ids, err := c.store.Sessions(ctx)
	if err != nil {
		return
	}
	gone, err := c.sessions.Missing(ctx, ids)
	if err != nil {
		return
	}
	for _, id := range gone {
		c.store.Forget(ctx, id)
	}
}

// checkpointsRoot is the directory of the checkpoint stores of the
// sessions in store: DATA/checkpoints/NAME beside the database NAME.db,
// so that a second database (--db) in the same directory keeps its own,
// and one's sweep never forgets the other's sessions.
func checkpointsRoot(store *sessions.Store) string {
	db := store.Path()
	return filepath.Join(filepath.Dir(db), "checkpoints", strings.TrimSuffix(filepath.Base(db), filepath.Ext(db)))
}

// observe takes the checkpoint of the prompt starting and, when its turn
// ends, the tree it left. The prompt's checkpoint is taken while the first
// request is in flight, from the moment it is written to the connection
// (providers.WhenRequestWritten; or the first event of the loop's step
// after StepStarted, for a provider whose writes go unseen): begun with the
// turn, its reading of the tree held both processors while the request
// waited to be written. The turn runs no tool call that may change files
// (nor, when hooks run around calls, any call) before it is taken
// (loop.WithToolGateFor), and the turn's end waits for it; each begins it
// first if nothing did, the end even when the turn was cancelled before
// its request went (the prompt is a restore point all the same). A
// checkpoint that fails is warned of once and the turn goes on without
// it.
func (c *checkpoints) observe(ctx context.Context, t turn.Start) (context.Context, func(loop.Event)) {
	if c.off.Load() || t.Session == "" {
		return ctx, nil
	}
	// The prompt's message comes next: its seq is the conversation's next
	// (read from the store when not given, before the turn records it).
	seq := t.Seq
	if seq <= 0 {
		var err error
		if seq, err = c.sessions.NextSeq(ctx, t.Session); err != nil {
			c.failed(err)
			return ctx, nil
		}
	}
	taken := make(chan struct{})
	var tree string
	turnCtx := ctx
	var once sync.Once
	// startWith begins the checkpoint, once, with ctx: the turn's, so that
	// cancelling the turn stops it, as it stopped the checkpoint taken
	// before the first request (a first checkpoint of a large tree takes
	// seconds); the turn's end waits for it.
	startWith := func(ctx context.Context) {
		once.Do(func() {
			go func() {
				defer close(taken)
				var err error
				if tree, err = c.begin(ctx, t, seq); err != nil {
					if errors.Is(err, checkpoint.ErrTooManyFiles) {
						c.off.Store(true) // every prompt would list them all again
					}
					c.failed(err)
				}
			}()
		})
	}
	start := func() { startWith(turnCtx) }
	ctx = providers.WhenRequestWritten(ctx, start)
	// Calls that change nothing (reads, searches) need not wait for it,
	// unless hooks run around them.
	gated := loop.WithToolGateFor(ctx, func(ctx context.Context) {
		start()
		select {
		case <-taken:
		case <-ctx.Done():
		}
	}, func(d tools.Definition) bool {
		return mayChangeFiles(d.Effects) || c.hooked
	})
	var ahead turnAhead
	stepped := false // a step began: its events after StepStarted follow its request
	return gated, func(ev loop.Event) {
		switch ev.(type) {
		case loop.StepStarted:
			stepped = true
		case loop.Done:
			// A turn that ended before anything began it (cancelled,
			// or its request never written) still takes it.
			startWith(context.WithoutCancel(turnCtx))
		default:
			if stepped {
				start() // the response began: its request was written
			}
		}
		switch ev := ev.(type) {
		case loop.ToolCallFinished:
			if mayChangeFiles(ev.Effects) {
				ahead.dirty = true
				ahead.noteCall(ev, c.hooked)
			}
		case loop.StepStarted:
			// The next request is on its way: what the calls before it
			// changed is read meanwhile, so the turn's end finds it done.
			if ahead.dirty {
				ahead.dirty = false
				written, known := ahead.written, !ahead.opaque
				ahead.written, ahead.opaque = nil, false
				ahead.wg.Go(func() {
					<-taken
					if tree != "" {
						ahead.take(context.WithoutCancel(turnCtx), c, t.Session, seq, tree, written, known)
					}
				})
			}
		case loop.Done:
			<-taken
			ahead.wg.Wait()
			if tree == "" {
				return
			}
			if c.byCalls && ahead.byCalls(context.WithoutCancel(turnCtx), c, t.Session, seq, tree) {
				return
			}
			if err := c.end(context.WithoutCancel(turnCtx), t.Session, seq, tree, &ahead); err != nil {
				c.failed(err)
			}
		}
	}
}

// mayChangeFiles reports whether a call of a tool with effects e may change
// the working directory's files: one that writes them, runs commands, or
// whose effects nobody vouches for.
func mayChangeFiles(e tools.Effects) bool {
	return e.Unknown() || e&(tools.WritesWorkspace|tools.RunsCommands) != 0
}

// turnAhead is the checkpoint of a turn taken ahead of its end: as each
// request after a call that may have changed files goes out (the model's
// answer takes far longer than a checkpoint that reads only what the
// watch saw change), so the turn's end usually finds the files as they
// were then and has nothing left to read. Its events come one at a time.
type turnAhead struct {
	dirty bool // a call since the last step may have changed files
	// written are the files the calls since the last step wrote, by the
	// paths their results name; opaque is set when one of them may have
	// changed others (a command, a tool whose effects nobody vouches for,
	// one that names no path, hooks around calls).
	written []string
	opaque  bool
	wg      sync.WaitGroup // the checkpoints being taken
	// mu orders the checkpoints taken ahead (a step may go out before the
	// last one ended): the last to take one holds the newest tree.
	mu      sync.Mutex
	tree    string   // the last one taken ahead ("" none)
	changed []string // what changed between the prompt's checkpoint and tree
	failed  bool     // one failed: what it was to take is not in tree
}

// byCalls records the end of the turn of the prompt at seq (its
// checkpoint start) from the files its calls wrote: the tree the last
// checkpoint ahead took, after one more for the calls since, unless one
// of those may have changed other files or a checkpoint ahead failed
// (false: the turn's end is read in full).
func (a *turnAhead) byCalls(ctx context.Context, c *checkpoints, session string, seq int, start string) bool {
	if a.dirty {
		// Calls after the last step (a turn stopped after its tools).
		written, known := a.written, !a.opaque
		a.dirty, a.written, a.opaque = false, nil, false
		if !known {
			return false
		}
		a.take(ctx, c, session, seq, start, written, known)
	}
	a.mu.Lock()
	end, changed, failed := start, []string(nil), a.failed
	if a.tree != "" {
		end, changed = a.tree, a.changed
	}
	a.mu.Unlock()
	if failed {
		return false
	}
	if err := c.sessions.EndCheckpoint(ctx, session, seq, end, changed); err != nil {
		c.failed(err)
	}
	return true
}

// noteCall records what a finished call that may have changed files
// wrote: the path its result names when it is a file tool's (it writes
// files and does nothing else) and no hooks run around calls.
func (a *turnAhead) noteCall(ev loop.ToolCallFinished, hooked bool) {
	p, ok := ev.Meta[tools.MetaPath].(string)
	if hooked || ev.Effects.Unknown() || ev.Effects&tools.RunsCommands != 0 || !ok || p == "" {
		a.opaque = true
		return
	}
	a.written = append(a.written, p)
}

// take takes the checkpoint ahead, and what changed since the prompt's
// (start): from the files written alone when the store reads by calls
// and they are all that changed (known), else in full. A failure is left
// to the turn's end, which takes it again.
func (a *turnAhead) take(ctx context.Context, c *checkpoints, session string, seq int, start string, written []string, known bool) {
	if c.aheadTaken != nil {
		defer c.aheadTaken()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	name := fmt.Sprintf("step-%d-%d", seq, c.taken.Add(1))
	var snap checkpoint.Snapshot
	var err error
	if c.byCalls && known {
		snap, err = c.store.TakeChanged(ctx, session, name, written)
	} else {
		snap, err = c.store.Take(ctx, session, name)
	}
	var changed []string
	if err == nil && snap.Tree != start {
		changed, err = c.store.Changed(ctx, start, snap.Tree)
	}
	if err != nil {
		a.failed = true
		return
	}
	a.tree, a.changed = snap.Tree, changed
}

// observeChild is observe for a subagent's turn, in the same directory
// only (a child isolated in a worktree of its own has other files).
func (c *checkpoints) observeChild(ctx context.Context, t turn.Start) (context.Context, func(loop.Event)) {
	rec, err := c.sessions.Get(ctx, t.Session)
	if err != nil || rec.Dir != c.store.Dir() {
		return ctx, nil
	}
	return c.observe(ctx, t)
}

// begin takes and records the checkpoint of prompt t, whose message has
// seq, and returns its tree.
func (c *checkpoints) begin(ctx context.Context, t turn.Start, seq int) (tree string, err error) {
	// The prompt's id may come twice (a client's user message uuid): the
	// ref of each prompt's checkpoint is its own, so none is replaced
	// and pruned.
	name := fmt.Sprintf("%s-%x-%d", sanitizeRef(t.PromptID), time.Now().UnixNano(), c.taken.Add(1))
	snap, err := c.store.Take(ctx, t.Session, name)
	if err != nil {
		return "", err
	}
	skipped := make([]sessions.SkippedFile, len(snap.Skipped))
	for i, s := range snap.Skipped {
		skipped[i] = sessions.SkippedFile{Path: s.Path, Reason: s.Reason}
	}
	if _, err := c.sessions.SaveCheckpoint(ctx, t.Session, sessions.NewCheckpoint{ID: t.PromptID, Tree: snap.Tree, Skipped: skipped, Seq: seq}); err != nil {
		return "", err
	}
	c.saved.Store(t.Session, true)
	return snap.Tree, nil
}

// end records the tree the turn of the prompt at seq left, and what it
// changed: what ahead found already when the tree is the one it took.
func (c *checkpoints) end(ctx context.Context, session string, seq int, start string, ahead *turnAhead) error {
	snap, err := c.store.Take(ctx, session, fmt.Sprintf("end-%d", seq))
	if err != nil {
		return err
	}
	var changed []string
	switch {
	case snap.Tree == start:
	case snap.Tree == ahead.tree:
		changed = ahead.changed
	default:
		if changed, err = c.store.Changed(ctx, start, snap.Tree); err != nil {
			return err
		}
	}
	return c.sessions.EndCheckpoint(ctx, session, seq, snap.Tree, changed)
}

// failed warns of the first checkpoint that could not be taken.
func (c *checkpoints) failed(err error) {
	c.once.Do(func() {
		if c.warn != nil {
			c.warn("checkpoint not taken (rewind cannot restore this prompt's files): " + err.Error())
		}
	})
}
