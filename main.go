// Command agent is a terminal coding agent: it talks to a language model that
// reads, searches and changes the repository it is started in.
package main

import (
	"os"

	"github.com/agent-dev/agent/cmd"
	"github.com/agent-dev/agent/internal/cpuprofile"
)

func main() {
	stop := cpuprofile.FromEnv()
	code := cmd.Execute()
	stop()
	os.Exit(code)
}
