package subagent

import (
	"strings"
	"testing"
)

// [subagents] max_parallel takes 0 (the default) or more; less names the
// config file.
func TestResolveSettings(t *testing.T) {
	if s, err := ResolveSettings(File{MaxParallel: 3}, "config c.toml"); err != nil || s.MaxParallel != 3 {
		t.Errorf("max_parallel 3: %+v, %v", s, err)
	}
	if _, err := ResolveSettings(File{MaxParallel: -1}, "config c.toml"); err == nil || !strings.Contains(err.Error(), "config c.toml: [subagents] max_parallel") {
		t.Errorf("max_parallel -1: %v", err)
	}
}
