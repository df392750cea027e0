package protocols

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	sa "github.com/agent-dev/agent/internal/scriptedanthropic"
)

// cacheSession is a three-turn session on this repository: each turn picks
// the tools it needs, reads or searches, and answers; turns 2 and 3
// continue the session with -c.
var cacheSession = [][]sa.Reply{
	{
		sa.Answer(sa.ToolUse("toolu_p1", "pick_tools", `{"names":["grep","read_file"]}`)),
		sa.Answer(sa.ToolUse("toolu_g1", "grep", `{"pattern":"func exitCode\\(","glob":"*.go"}`),
			sa.ToolUse("toolu_r1", "read_file", `{"path":"cmd/errors.go"}`)),
		sa.Answer(sa.Text("In exitCode, cmd/errors.go.")),
	},
	{
		sa.Answer(sa.ToolUse("toolu_p2", "pick_tools", `{"names":["read_file"]}`)),
		sa.Answer(sa.ToolUse("toolu_r2", "read_file", `{"path":"host/config.go","limit":120}`)),
		sa.Answer(sa.Text("usagef wraps them in usageError.")),
	},
	{
		sa.Answer(sa.ToolUse("toolu_p3", "pick_tools", `{"names":["grep"]}`)),
		sa.Answer(sa.ToolUse("toolu_g3", "grep", `{"pattern":"func dbPath","glob":"*.go"}`)),
		sa.Answer(sa.Text("In host/store.go, dbPath.")),
	},
}

var cachePrompts = []string{"Where is the exit code decided?", "And how are usage errors made?", "Where are sessions stored?"}

// TestAnthropicCacheShare runs the three-turn session through the
// Anthropic adapter against the scripted server's simulated prompt cache
// (which reads and writes the prefixes the request's cache_control
// breakpoints mark) and reports the share of input tokens served from the
// cache by the requests after the first, and the whole session's billed
// input at Anthropic's prices (cache reads at 0.1, writes at 1.25 of an
// uncached token), in pick, swap and all mode. The figures go in
// BENCHMARKS.md; the goal (70% in pick mode) is reported, not enforced, as
// it depends on picks lasting the whole session.
func TestAnthropicCacheShare(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"pick", "swap", "all"} {
		t.Run(mode, func(t *testing.T) {
			dir := e2e.SourceTree(t)
			db := filepath.Join(t.TempDir(), "agent.db")
			var replies []sa.Reply
			for _, turn := range cacheSession {
				replies = append(replies, turn...)
			}
			srv := sa.NewWithOptions(t, sa.Options{SimulateCache: true}, replies...)
			for i, prompt := range cachePrompts {
				args := e2e.AnthropicArgs(srv, "--db", db, "--tools", mode)
				if i > 0 {
					args = append(args, "-c")
				}
				res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"ANTHROPIC_API_KEY=k"}, Args: append(args, "-p", prompt)})
				if res.Code != 0 {
					t.Fatalf("turn %d: exit %d, stderr %q", i+1, res.Code, res.Stderr)
				}
			}
			reqs := srv.Requests()
			var input, read, write int
			var billed float64
			var b strings.Builder
			for i, r := range reqs {
				u := r.Usage
				total := u.Input + u.CacheRead + u.CacheWrite
				fmt.Fprintf(&b, "request %d: %6d input tokens, %6d read from the cache, %6d written, %5d uncached; breakpoints %v\n",
					i+1, total, u.CacheRead, u.CacheWrite, u.Input, r.Params.Breakpoints())
				if i > 0 {
					input, read, write = input+total, read+u.CacheRead, write+u.CacheWrite
				}
				billed += float64(u.Input) + 0.1*float64(u.CacheRead) + 1.25*float64(u.CacheWrite)
			}
			share := float64(read) / float64(input)
			t.Logf("%s mode, %d requests:\n%srequests 2-%d: %d input tokens, %d read from the cache (%.1f%%), %d written; "+
				"the session bills %.0f input tokens", mode, len(reqs), b.String(), len(reqs), input, read, 100*share, write, billed)
			if len(reqs) != 9 || read == 0 {
				t.Errorf("%d requests, %d tokens read from the cache", len(reqs), read)
			}
		})
	}
}
