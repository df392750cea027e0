package providers

import "strings"

// ContextWindow returns the context window in tokens of a model, by
// case-insensitive prefix of its name (a "vendor/" prefix is ignored), or 0
// when the model is not known.
func ContextWindow(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	// Longer prefixes first where one prefix extends another.
	table := [...]struct {
		prefix string
		tokens int
	}{
		{"gpt-4.1", 1_047_576},
		{"gpt-4o", 128_000},
		{"gpt-4-turbo", 128_000},
		{"gpt-5", 400_000},
		{"o4-mini", 200_000},
		{"codex-mini", 200_000},
		{"o3", 200_000},
		{"o1", 200_000},
		{"claude-", 200_000},
		{"qwen2.5-coder", 32_768},
		{"qwen2.5", 32_768},
		{"llama3.1", 131_072},
		{"llama3.2", 131_072},
		{"llama3.3", 131_072},
		{"llama-3.1", 131_072},
		{"llama-3.2", 131_072},
		{"llama-3.3", 131_072},
		{"llama3", 8_192},
		{"deepseek", 128_000},
		{"gemini-2", 1_048_576},
	}
	for _, e := range table {
		if strings.HasPrefix(m, e.prefix) {
			return e.tokens
		}
	}
	return 0
}
