package fs

import (
	"encoding/json"

	"github.com/agent-dev/agent/tools"
)

// summaryArgs are the arguments the file tools' summaries read.
type summaryArgs struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Glob    string `json:"glob"`
}

// readSummaryArgs decodes a call's raw arguments; ok is false when they are
// not a JSON object (a model may write anything).
func readSummaryArgs(raw string) (summaryArgs, bool) {
	var a summaryArgs
	return a, json.Unmarshal([]byte(raw), &a) == nil
}

// summarizePath reads a call of read_file, edit_file or write_file as the
// file it works on.
func summarizePath(raw string) tools.Summary {
	a, ok := readSummaryArgs(raw)
	if !ok || a.Path == "" {
		return tools.DefaultSummary(raw)
	}
	return tools.Summary{Title: tools.OneLine(a.Path), Full: tools.PrettyJSON(raw), Paths: []string{a.Path}}
}

// summarizeList reads a list_files call as "PATTERN in PATH".
func summarizeList(raw string) tools.Summary {
	a, ok := readSummaryArgs(raw)
	if !ok {
		return tools.DefaultSummary(raw)
	}
	s := a.Path
	if s == "" {
		s = "."
	}
	paths := []string{s}
	if a.Pattern != "" {
		s = a.Pattern + " in " + s
	}
	return tools.Summary{Title: tools.OneLine(s), Full: tools.PrettyJSON(raw), Paths: paths}
}

// summarizeGrep reads a grep call as "PATTERN in PATH (GLOB)".
func summarizeGrep(raw string) tools.Summary {
	a, ok := readSummaryArgs(raw)
	if !ok || a.Pattern == "" {
		return tools.DefaultSummary(raw)
	}
	s := a.Pattern
	var paths []string
	if a.Path != "" {
		s += " in " + a.Path
		paths = []string{a.Path}
	}
	if a.Glob != "" {
		s += " (" + a.Glob + ")"
	}
	return tools.Summary{Title: tools.OneLine(s), Full: tools.PrettyJSON(raw), Paths: paths}
}
