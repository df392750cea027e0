package version

import (
	"strings"
	"testing"
)

func TestAnswerOnlyAPlainVersionOfAStampedBuild(t *testing.T) {
	tests := []struct {
		args    string
		stamped string
		want    string // "" when the command line is left to cobra
	}{
		{"--version", "1.2.3", "agent 1.2.3\n"},
		{"--version", "", ""},
		{"--model m --version", "1.2.3", ""},
		{"-p --version", "1.2.3", ""},
		{"", "1.2.3", ""},
		{"version", "1.2.3", ""},
		{"__agent-sandbox --version", "1.2.3", ""},
	}
	for _, tt := range tests {
		var out strings.Builder
		got := answer(strings.Fields(tt.args), tt.stamped, &out)
		if got != (tt.want != "") || out.String() != tt.want {
			t.Errorf("answer(%q, stamped %q) = %v, wrote %q; want %q", tt.args, tt.stamped, got, out.String(), tt.want)
		}
	}
}
