package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLen is the longest tool name every provider accepts.
const MaxNameLen = 64

// Prefix starts the name of every MCP tool: mcp__SERVER__TOOL.
const Prefix = "mcp__"

// ToolName is the name under which the tool called tool of server is
// offered: mcp__SERVER__TOOL with every character outside [a-zA-Z0-9_-]
// replaced by an underscore. A name longer than MaxNameLen is cut and ends
// with a hash of the original names, so that two long names stay apart.
func ToolName(server, tool string) string {
	name := Prefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= MaxNameLen {
		return name
	}
	return name[:MaxNameLen-9] + "_" + hash(server, tool)
}

// uniqueName returns ToolName, or when that name is taken (two originals
// that sanitise alike), the name with a hash of the originals at its end.
func uniqueName(server, tool string, taken func(string) bool) string {
	name := ToolName(server, tool)
	if !taken(name) {
		return name
	}
	h := "_" + hash(server, tool)
	if len(name)+len(h) > MaxNameLen {
		name = name[:MaxNameLen-len(h)]
	}
	return name + h
}

func hash(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:4])
}

// sanitize replaces every character outside [a-zA-Z0-9_-] with '_'.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
