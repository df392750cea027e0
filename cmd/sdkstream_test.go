package cmd

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/host"
)

// TestSDKFlags: the flags the Claude Agent SDK passes (as --name=value)
// parse; in its protocol mode an unknown flag is ignored with a warning on
// stderr, elsewhere it stays a usage error.
func TestSDKFlags(t *testing.T) {
	args := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--max-turns=3",
		"--model=m1", "--permission-prompt-tool=stdio", "--permission-mode=acceptEdits", "--include-partial-messages",
		"--allowedTools=Read,Bash(git:*)", "--disallowedTools", "Write", "--mcp-config", `{"mcpServers":{}}`,
		"--append-system-prompt", "be brief", "--add-dir", "/tmp", "--setting-sources=user,project", "--fallback-model", "x"}
	var errOut bytes.Buffer
	var got *Options
	c := NewRootCmd(Streams{Out: &bytes.Buffer{}, Err: &errOut}, envOf(nil), func(_ context.Context, o *Options) error { got = o; return nil })
	allowUnknownSDKFlags(c, args, &errOut)
	c.SetArgs(args)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	sdk := got.SDK
	if sdk.InputFormat != "stream-json" || sdk.MaxTurns != 3 || got.Model != "m1" || sdk.PermissionPromptTool != "stdio" ||
		got.PermissionMode != "acceptEdits" || !sdk.PartialMessages || !slices.Equal(sdk.AllowedTools, []string{"Read", "Bash(git:*)"}) ||
		!slices.Equal(sdk.DisallowedTools, []string{"Write"}) || sdk.AppendSystemPrompt != "be brief" || len(sdk.MCPConfig) != 1 {
		t.Errorf("options %+v", got)
	}
	if !slices.Equal(got.FallbackModels, []string{"x"}) {
		t.Errorf("--fallback-model (the SDK's fallbackModel) is taken: %v", got.FallbackModels)
	}
	for _, name := range []string{"--setting-sources"} {
		if !strings.Contains(errOut.String(), "ignoring "+name) {
			t.Errorf("no warning for %s: %q", name, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "--max-turns") {
		t.Errorf("a known flag was warned about: %q", errOut.String())
	}

	c = NewRootCmd(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, envOf(nil), func(context.Context, *Options) error { return nil })
	plain := []string{"-p", "--setting-sources=user", "hi"}
	allowUnknownSDKFlags(c, plain, &errOut)
	c.SetArgs(plain)
	if err := c.Execute(); exitCode(err) != ExitUsage {
		t.Errorf("an unknown flag outside the SDK's mode: %v", err)
	}
}

func TestToolRules(t *testing.T) {
	names, cmds := toolRules([]string{"Read", "Bash(git:*)", "mcp__fs__read", "Edit Write"})
	if !slices.Equal(names, []string{"read_file", "mcp__fs__read", "edit_file", "write_file"}) || !slices.Equal(cmds, []string{"git"}) {
		t.Errorf("names %v, commands %v", names, cmds)
	}
}

func TestSDKPermissionModes(t *testing.T) {
	for in, want := range map[string]string{"default": "ask", "acceptEdits": "auto", "bypassPermissions": "yolo", "plan": "plan", "": "ask"} {
		if got, err := sdkPermissionMode(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := sdkPermissionMode("sideways"); err == nil {
		t.Error("an unknown mode must be refused")
	}
}

// The system init message names the mode as the SDK's PermissionMode type
// does: agent's own names (ask, auto, yolo) are not among its values.
func TestSDKModeNameRoundTrips(t *testing.T) {
	for _, in := range []string{"default", "acceptEdits", "bypassPermissions", "plan"} {
		mode, err := sdkPermissionMode(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := sdkModeName(mode); got != in {
			t.Errorf("%q is agent's %q, named %q in system init; want %q", in, mode, got, in)
		}
	}
	if got := sdkModeName(host.ModeAsk); got != "default" {
		t.Errorf("ask is named %q, want default", got)
	}
}
