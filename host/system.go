package host

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// maxAgentsMDBytes caps how much of AGENTS.md goes into the system prompt
// (32 KiB); a longer file is cut with a note.
const maxAgentsMDBytes = 32 << 10

// systemPrompt builds the system prompt: who the agent is, the working
// directory, the platform, the date, how to use tools, and the project's
// AGENTS.md when the working directory has one. AGENTS.md is read through
// root, so a symlink that leads outside the working directory is ignored,
// and only when it is a regular file, so a FIFO cannot block the start.
func systemPrompt(root *os.Root, dir string, now time.Time, toolsMode string) string {
	var b strings.Builder
	b.WriteString("You are agent, a coding assistant that works in the user's repository through tools.\n")
	fmt.Fprintf(&b, "Working directory: %s\nPlatform: %s/%s\nDate: %s\n\n", dir, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	b.WriteString("Paths are relative to the working directory; tools cannot reach outside it. " +
		"Look at the code before you answer: list, search and read files rather than guessing, and cite places as path:line. " +
		"Answer concisely and directly, in markdown.\n")
	b.WriteString(toolsNote(toolsMode))
	if text := readAgentsMD(root); text != "" {
		fmt.Fprintf(&b, "\nThe project's AGENTS.md says:\n<agents_md>\n%s\n</agents_md>\n", strings.TrimSpace(text))
	}
	return b.String()
}

// readAgentsMD returns the trimmed text of root's AGENTS.md, cut at
// maxAgentsMDBytes, or "" when there is no readable regular file.
func readAgentsMD(root *os.Root) string {
	if fi, err := root.Stat("AGENTS.md"); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := root.Open("AGENTS.md")
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAgentsMDBytes+1))
	if err != nil {
		return ""
	}
	text := string(data)
	if len(text) > maxAgentsMDBytes {
		text = text[:maxAgentsMDBytes] + "\n(AGENTS.md was cut here)"
	}
	return strings.TrimSpace(text)
}

// toolsNote is the system prompt's line on how the tools are offered in
// toolsMode: pick and swap need the model to call pick_tools first; ""
// for all.
func toolsNote(toolsMode string) string {
	switch toolsMode {
	case "pick":
		return "Your tools are listed in pick_tools' description. " +
			"Call pick_tools with every tool you need first, in one call; their definitions arrive in its result.\n"
	case "swap":
		return "Tools other than pick_tools are listed by name and a one-line brief. " +
			"Call pick_tools with every tool you need first, in one call; then call them with their full schemas.\n"
	}
	return ""
}
