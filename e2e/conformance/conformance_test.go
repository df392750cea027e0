// Package conformance runs the official MCP conformance suite's client
// scenarios against the agent binary. It is a package of its own, beside
// the other e2e packages, so that its two minutes of scenarios have their
// own share of go test's 10-minute limit and run beside them rather than
// after them.
package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/e2e"
)

// hangLimit bounds one scenario: the suite's own timeout is two minutes.
const hangLimit = 3 * time.Minute

// TestMain runs the tests; the agent and the adapter are built, once for
// all the e2e packages, when the suite is there to run them (e2e.Agent).
func TestMain(m *testing.M) { e2e.Main(m) }

// conformanceVersion is the official MCP conformance suite the tests run,
// as .ci/run installs it: npm install --no-save --prefix out/conformance
// @modelcontextprotocol/conformance@0.1.16.
const conformanceVersion = "0.1.16"

// clientScenarios are the suite's 26 client scenarios (`conformance list`
// of 0.1.16).
var clientScenarios = []string{
	"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/client-credentials-jwt", "auth/client-credentials-basic",
	"auth/cross-app-access-complete-flow",
}

// knownFailing are the scenarios agent does not pass yet, with the reason;
// the README names them too. A scenario listed here that passes is logged,
// not failed, so the list can shrink as the features arrive.
var knownFailing = map[string]string{}

// conformanceSuite returns the node command that runs the suite: node with
// the preload that gives Node 20 the fs.globSync the suite needs
// (e2e/conformance/testdata/globsync.mjs), and the suite's entry point. It
// skips the test when the suite is not installed, and fails it in CI.
func conformanceSuite(t *testing.T) []string {
	t.Helper()
	entry := filepath.Join(e2e.Root(t), "out", "conformance", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	_, err := os.Stat(entry)
	if _, nerr := exec.LookPath("node"); nerr != nil {
		err = nerr
	}
	if err != nil {
		msg := "the MCP conformance suite is not installed (" + err.Error() + "): run npm install --no-save --prefix out/conformance @modelcontextprotocol/conformance@" + conformanceVersion + " (.ci/run does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	preload, _ := filepath.Abs(filepath.Join("testdata", "globsync.mjs"))
	return []string{"node", "--import", preload, entry}
}

// TestConformanceClient runs every client scenario of the official MCP
// conformance suite against the agent binary: the suite starts the
// scenario's server (and authorization servers), the adapter runs `agent
// -p` with that server in its config and a scripted model that calls the
// scenario's tool, and the suite checks what the agent did on the wire
// (discovery, registration, PKCE, the resource parameter, scopes, token
// requests). Each scenario is a subtest; the suite's exit code says
// whether it passed.
func TestConformanceClient(t *testing.T) {
	t.Parallel()
	suite := conformanceSuite(t)
	adapter, agent := e2e.Adapter(t), e2e.Agent(t)
	for _, scenario := range clientScenarios {
		t.Run(strings.ReplaceAll(scenario, "/", "_"), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
			defer cancel()
			args := append(suite[1:], "client", "--command", adapter+" -agent "+agent, "--scenario", scenario,
				"--timeout", "120000", "-o", t.TempDir())
			cmd := exec.CommandContext(ctx, suite[0], args...)
			cmd.Dir = t.TempDir()
			cmd.Env = os.Environ()
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the suite hung for %v on %s:\n%s", hangLimit, scenario, out)
			}
			reason, known := knownFailing[scenario]
			switch {
			case err != nil && known:
				t.Skipf("known to fail: %s", reason)
			case err != nil:
				t.Fatalf("conformance client --scenario %s: %v\n%s", scenario, err, out)
			case known:
				t.Logf("%s passes now: remove it from knownFailing (%s)", scenario, reason)
			}
		})
	}
}
