// Package conformance runs the agent as a client of the official MCP
// conformance suite (npm @modelcontextprotocol/conformance, `conformance
// client --command ADAPTER --scenario NAME`). The suite starts a test
// server for a scenario and runs its command with the server's URL as the
// last argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and, for
// some scenarios, a JSON object of credentials in MCP_CONFORMANCE_CONTEXT.
//
// Run answers such a call with the real agent binary: it writes a config
// file naming the scenario's server (with an [oauth] table built from the
// context), starts a scripted model (internal/scripted) that picks and
// calls the scenario's tool, and runs `agent -p` with BROWSER set to this
// adapter, which in browser mode (Browse) follows the authorization URL's
// redirects to the agent's loopback callback, as a person's browser would.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-dev/agent/internal/scripted"
)

// BrowseEnv is set (to "1") in the agent's environment by Run, so that the
// adapter, started again by the agent as its BROWSER, knows to act as the
// browser.
const BrowseEnv = "AGENT_CONFORMANCE_BROWSE"

// ServerName is the name the scenario's server has in the agent's config,
// so its tools are mcp__conformance__TOOL.
const ServerName = "conformance"

// Call is a tool call the scripted model makes: the tool's name on the MCP
// server and its arguments as a JSON object.
type Call struct {
	Tool string
	Args string
}

// Plan returns the tool call a scenario needs the client to make, or
// ok=false when connecting and listing the tools is all it asks
// (initialize, and scenarios this adapter does not know).
func Plan(scenario string) (c Call, ok bool) {
	switch {
	case scenario == "tools_call":
		return Call{"add_numbers", `{"a":5,"b":3}`}, true
	case scenario == "elicitation-sep1034-client-defaults":
		return Call{"test_client_elicitation_defaults", `{}`}, true
	case scenario == "sse-retry":
		return Call{"test_reconnection", `{}`}, true
	case strings.HasPrefix(scenario, "auth/"):
		return Call{"test-tool", `{}`}, true
	}
	return Call{}, false
}

// oauthKeys are the context's keys that become keys of the server's
// [oauth] table, under the same names.
var oauthKeys = []string{"client_id", "client_secret", "private_key_pem", "signing_algorithm",
	"idp_client_id", "idp_client_secret", "idp_id_token", "idp_issuer", "idp_token_endpoint"}

// Config returns the agent's config file (TOML) for a scenario: the
// server at url and, for the auth scenarios, its [oauth] table from the
// suite's context. Secrets go to the file as ${VAR} references with their
// values in env (VAR=value lines), as a person would configure them.
func Config(scenario, url string, sctx map[string]any) (toml string, env []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp.servers.%s]\nurl = %q\nstartup_timeout = \"60s\"\n", ServerName, url)
	if strings.HasPrefix(scenario, "elicitation-") {
		// Headless: nobody to ask; the server's forms take their defaults.
		b.WriteString("elicitation = \"defaults\"\n")
	}
	if !strings.HasPrefix(scenario, "auth/") {
		return b.String(), nil
	}
	fmt.Fprintf(&b, "[mcp.servers.%s.oauth]\n", ServerName)
	// A client ID metadata document URL, used where the authorization
	// server supports them (as the Go SDK's own conformance client does).
	fmt.Fprintf(&b, "client_metadata_url = %q\n", "https://conformance-test.local/client-metadata.json")
	if strings.HasPrefix(scenario, "auth/client-credentials") {
		b.WriteString("grant_type = \"client_credentials\"\n")
	}
	keys := make([]string, 0, len(sctx))
	for k := range sctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, isString := sctx[k].(string)
		if !isString || !contains(oauthKeys, k) {
			continue
		}
		switch k {
		case "client_secret", "private_key_pem", "idp_client_secret", "idp_id_token":
			name := "CONFORMANCE_" + strings.ToUpper(k)
			env = append(env, name+"="+v)
			fmt.Fprintf(&b, "%s = \"${%s}\"\n", k, name)
		default:
			fmt.Fprintf(&b, "%s = %q\n", k, v)
		}
	}
	return b.String(), env
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Script is the scripted model's replies for a scenario: pick the tool,
// call it, then answer "done"; or only answer when there is nothing to
// call.
func Script(scenario string) []scripted.Reply {
	call, ok := Plan(scenario)
	if !ok {
		return []scripted.Reply{scripted.Text("done")}
	}
	name := "mcp__" + ServerName + "__" + call.Tool
	return []scripted.Reply{
		scripted.ToolCalls(scripted.Call{ID: "pick", Name: "pick_tools", Arguments: fmt.Sprintf(`{"names":[%q]}`, name)}),
		scripted.ToolCalls(scripted.Call{ID: "call", Name: name, Arguments: call.Args}),
		scripted.Text("done"),
	}
}

// Options are what Run needs besides the scenario.
type Options struct {
	// Agent is the agent binary; Self this adapter (the agent's BROWSER).
	Agent, Self string
	// Scenario, URL and Context are the suite's: the scenario's name, its
	// server's URL and the parsed MCP_CONFORMANCE_CONTEXT (may be nil).
	Scenario, URL string
	Context       map[string]any
	// Stdout and Stderr receive the agent's.
	Stdout, Stderr io.Writer
}

// Run runs the agent for one scenario in a fresh temporary home and
// returns its exit code (0 when the agent's turn ended well), or an error
// when the agent could not be run at all.
func Run(ctx context.Context, o Options) (int, error) {
	home, err := os.MkdirTemp("", "agent-conformance-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(home)
	cfgText, secrets := Config(o.Scenario, o.URL, o.Context)
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte(cfgText), 0o600); err != nil {
		return 0, err
	}
	model := scripted.Start(scripted.Options{}, Script(o.Scenario)...)
	defer model.Close()
	cmd := exec.CommandContext(ctx, o.Agent, "--base-url", model.URL(), "--model", "scripted-model",
		"--max-retries", "0", "--config", cfg, "-p", "Call the conformance server's tool.")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "BROWSER="+o.Self, BrowseEnv+"=1")
	cmd.Env = append(cmd.Env, secrets...)
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("running %s: %w", o.Agent, err)
	}
	return 0, nil
}

// ParseContext parses MCP_CONFORMANCE_CONTEXT ("" is no context).
func ParseContext(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	return m, nil
}

// Browse does what a person's browser and a click on "allow" do in the
// suite: it gets the authorization URL and follows its redirects (the
// suite's authorization server redirects at once) to the agent's loopback
// callback. It fails unless the callback answers 200.
func Browse(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s: %s", resp.Request.URL.Redacted(), resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
