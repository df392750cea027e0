package cmd

import (
	"net/http"
	"strings"
	"testing"
)

// LOW. A bad writable root in [sandbox] fails resolveSettings after the
// sandbox mode was set, so doctor goes on: it checks the sandbox without
// the configured roots (reported as if the configuration were fine) and
// prints the config error on the "provider" line, skipping the provider
// check. The error belongs on a "configuration" line, and the sandbox
// should not be reported for a configuration the agent would refuse.
func TestDoctorReportsABadWritableRootAsConfiguration(t *testing.T) {
	url := modelsServer(t, "sk-doctor", http.StatusUnauthorized)
	config := writeConfig(t, "[sandbox]\nwritable_roots = [\"relative/dir\"]\n")
	out, code := doctor(t, config, map[string]string{"OPENAI_API_KEY": "sk-doctor"}, "--base-url", url, "--model", "m2")
	if code == 0 {
		t.Errorf("doctor succeeded with a bad writable root:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "provider") && strings.Contains(line, "writable root") {
			t.Errorf("the config error is reported as the provider's: %q\n%s", line, out)
		}
	}
	if !strings.Contains(out, "configuration") {
		t.Errorf("no configuration line:\n%s", out)
	}
}
