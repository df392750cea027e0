// Command agent-sandbox is the sandbox helper alone: package helper and the
// few standard packages it imports, about 1.8 MB against the agent's 45 MB.
// Started as
//
//	agent-sandbox __agent-sandbox [OPTIONS] -- PROGRAM ARGS...
//
// it does what the agent's own binary does when started so (helper's init
// takes over before main), in a third of the time: the runtime's start-up
// grows with the binary (its function table checked, its itabs hashed,
// their pages faulted in), about 2.5 ms of every sandboxed command on a
// 2-core machine. The agent embeds it, built by helperbin's generator, and
// starts it from memory (package helperbin); it is not installed.
package main

import (
	"os"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper" // takes over in its init when started as the helper
)

func main() {
	os.Stderr.WriteString("agent-sandbox: the agent's sandbox helper; the agent starts it, with " + helper.Arg + " first\n")
	os.Exit(2)
}
