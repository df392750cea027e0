package tools

// ClaudeTable is the table of Claude Code's names, for the external
// test that checks its own names against the real tools.
func ClaudeTable() (claude, own []string) {
	for _, t := range claudeTools {
		claude, own = append(claude, t.claude), append(own, t.own)
	}
	return claude, own
}
