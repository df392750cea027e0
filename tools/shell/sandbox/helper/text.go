package helper

// The few string functions the helper needs, so that it does not import
// package strings: Go initialises a package only after every package it
// imports, and strings (which carries its dependency on unicode's tables)
// is scheduled by its import path, after most of the agent's other packages;
// importing it delays the helper by a millisecond or more (see the package
// comment). Likewise the package does not use fmt.

// hasPrefix reports whether s begins with prefix.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// cut slices s around the first sep, as strings.Cut.
func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// fields splits s around runs of ASCII spaces, tabs and newlines.
func fields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// firstField is the first of s's fields, or "".
func firstField(s string) string {
	if f := fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// lines splits s at each newline.
func lines(s string) []string {
	var out []string
	for {
		line, rest, ok := cut(s, '\n')
		out = append(out, line)
		if !ok {
			return out
		}
		s = rest
	}
}

// lastIndexByte is the index of the last c in s, or -1.
func lastIndexByte(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}
