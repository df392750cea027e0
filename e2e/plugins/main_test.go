// Package plugins runs agent plugin as a person does: installing Claude
// Code plugins from a directory, a git repository and a marketplace,
// listing, enabling, disabling and removing them, and headless runs in
// which an installed plugin's command, hook and server take part.
package plugins

import (
	"testing"

	"github.com/agent-dev/agent/e2e"
)

// TestMain runs the tests; the agent is built when a test first needs it
// (e2e.Agent), once for all the e2e packages running at once.
func TestMain(m *testing.M) { e2e.Main(m) }
