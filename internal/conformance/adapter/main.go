// Command adapter runs the agent as a client of the official MCP
// conformance suite; see package conformance. Usage, as the suite's
// command:
//
//	conformance client --command "adapter -agent /path/to/agent" --scenario NAME
//
// The suite appends the scenario server's URL. Started by the agent as its
// BROWSER (AGENT_CONFORMANCE_BROWSE=1), it follows the authorization URL.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/agent-dev/agent/internal/conformance"
)

func main() {
	os.Exit(run())
}

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if os.Getenv(conformance.BrowseEnv) == "1" {
		if len(os.Args) != 2 {
			fmt.Fprintln(os.Stderr, "adapter as browser: want one URL")
			return 2
		}
		if err := conformance.Browse(ctx, os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "adapter as browser:", err)
			return 1
		}
		return 0
	}
	agent := flag.String("agent", "agent", "the agent binary")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: adapter [-agent PATH] SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)")
		return 2
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	sctx, err := conformance.ParseContext(os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 1
	}
	code, err := conformance.Run(ctx, conformance.Options{Agent: *agent, Self: self, Scenario: scenario,
		URL: flag.Arg(0), Context: sctx, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 1
	}
	return code
}
