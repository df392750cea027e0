package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/background"
)

// backgroundService keeps the session's background processes (bash's
// run_in_background): their Manager, whose output files live in the data
// directory under background/PID-START-RANDOM (the agent process that owns
// them), the tools bash_output and kill_shell, and every process stopped
// as the session closes. Directories whose agent is gone (one killed with
// SIGKILL: its processes died with it) are removed as the next session
// opens.
func backgroundService(env serviceEnv) (sessionService, error) {
	root := backgroundRoot(env.store)
	removeStaleBackground(root)
	m, err := background.New(background.Config{Dir: filepath.Join(root, ownerDirName()), Settings: env.a.settings.Background})
	if err != nil {
		return sessionService{}, err
	}
	env.a.background = m
	return sessionService{tools: background.Tools(m), close: func() { m.Close() }}, nil
}

// backgroundRoot is where the sessions' background processes keep their
// output: beside the session database.
func backgroundRoot(store *sessions.Store) string {
	return filepath.Join(filepath.Dir(store.Path()), "background")
}

// ownerDirName names this agent process's output directory: its pid, its
// start time (which tells it from a later process with the same pid) and
// a random part (one directory per session).
func ownerDirName() string {
	self := sessions.Self()
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf("%d-%d-%s", self.PID, self.Start, hex.EncodeToString(r[:]))
}

// ownerAlive reports whether the agent process that named dir runs.
func ownerAlive(name string) bool {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) != 3 {
		return false
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return sessions.Holder{PID: pid, Start: start, Host: sessions.Self().Host}.Alive()
}

// removeStaleBackground removes the output directories of agent processes
// that are gone.
func removeStaleBackground(root string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && !ownerAlive(e.Name()) {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// RunningBackground counts the background processes that the agent's
// running sessions have running, from their marks in the data directory
// beside the database at dbPath (for agent doctor).
func RunningBackground(dbPath string) int {
	root := filepath.Join(filepath.Dir(dbPath), "background")
	entries, _ := os.ReadDir(root)
	n := 0
	for _, e := range entries {
		if e.IsDir() && ownerAlive(e.Name()) {
			n += background.CountRunning(filepath.Join(root, e.Name()))
		}
	}
	return n
}

// backgroundNotes adds what the model has not heard of its background
// processes' ends to the result of a call of the session's own loop (not a
// subagent's), so that the next request tells it; nil without background
// processes.
func (a *agent) backgroundNotes(next loop.AfterCallFunc) loop.AfterCallFunc {
	if a.background == nil {
		return next
	}
	return func(ctx context.Context, c loop.AfterCall) tools.Result {
		res := c.Result
		if next != nil {
			res = next(ctx, c)
		}
		if c.Origin.Nested() {
			return res
		}
		if note := a.background.Notes(c.Session); note != "" {
			res.Content += "\n\n" + note
		}
		return res
	}
}

// backgroundPromptNote is the same note for session's next prompt, when
// its processes ended between turns; "" when there is none.
func (a *agent) backgroundPromptNote(session string) string {
	if a.background == nil {
		return ""
	}
	return a.background.Notes(session)
}

// backgroundSummaryNote restates the running processes after a
// compaction (loop.Config.SummaryNote); nil without background processes.
func (a *agent) backgroundSummaryNote() func(string) string {
	if a.background == nil {
		return nil
	}
	return a.background.Restate
}

// bashID finds the ids of background processes ("bash_12") in a
// conversation's text.
var bashID = regexp.MustCompile(`\bbash_([0-9]{1,9})\b`)

// reserveBackgroundIDs keeps the ids that msgs, a resumed conversation,
// names for the processes of earlier runs from being given again.
func (a *agent) reserveBackgroundIDs(msgs []providers.Message) {
	if a.background == nil {
		return
	}
	most := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			var text string
			switch p := p.(type) {
			case providers.Text:
				text = p.Text
			case providers.ToolResult:
				text = p.Content
			default:
				continue
			}
			for _, g := range bashID.FindAllStringSubmatch(text, -1) {
				if n, err := strconv.Atoi(g[1]); err == nil {
					most = max(most, n)
				}
			}
		}
	}
	a.background.Reserve(most)
}
