package host

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/agent-dev/agent/instructions"
)

// systemPrompt builds the system prompt: who the agent is, the working
// directory, the platform, the date, how to use tools, and the project's
// instructions (AGENTS.md, CLAUDE.md and the rest: package instructions).
func systemPrompt(instr instructions.Set, dir string, now time.Time, toolsMode string) string {
	var b strings.Builder
	b.WriteString("You are agent, a coding assistant that works in the user's repository through tools.\n")
	fmt.Fprintf(&b, "Working directory: %s\nPlatform: %s/%s\nDate: %s\n\n", dir, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	b.WriteString("Paths are relative to the working directory; tools cannot reach outside it. " +
		"Look at the code before you answer: list, search and read files rather than guessing, and cite places as path:line. " +
		"Answer concisely and directly, in markdown.\n")
	b.WriteString(toolsNote(toolsMode))
	b.WriteString(instr.Prompt())
	return b.String()
}

// toolsNote is the system prompt's line on how the tools are offered in
// toolsMode: pick and swap need the model to call pick_tools first; ""
// for all.
func toolsNote(toolsMode string) string {
	switch toolsMode {
	case "pick":
		return "Your tools are listed in pick_tools' description: call it first with every tool you need, in one call.\n"
	case "swap":
		return "Tools other than pick_tools are listed by name and a one-line brief. " +
			"Call pick_tools with every tool you need first, in one call; then call them with their full schemas.\n"
	}
	return ""
}
