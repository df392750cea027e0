package turn

import "strings"

// MemoryNote reports whether a prompt is a note to remember rather than a
// message to send (Claude Code's "#" gesture): it starts with one "#" not
// followed by "#" or "!" (a markdown subheading or a shebang is sent as
// typed). note is the text after the "#", trimmed; a lone "#" is no note.
// It is a prompt's syntax, the same in every front-end; where the note is
// kept (MEMORY.md) is the front-end's business.
func MemoryNote(prompt string) (note string, ok bool) {
	rest, found := strings.CutPrefix(prompt, "#")
	if !found || strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "!") {
		return "", false
	}
	note = strings.TrimSpace(rest)
	return note, note != ""
}
