package e2e

import (
	"strings"
	"time"
)

// MCPRunning sends /mcp (after /clear, so that only its answer is on the
// screen) until it reports server running, and returns that screen.
func (s *TmuxSession) MCPRunning(server string) string {
	s.t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		s.Send("/clear")
		s.Send("/mcp")
		screen := s.WaitFor(server + ": ")
		if strings.Contains(screen, server+": running") {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("/mcp never reported %s running:\n%s", server, screen)
		}
	}
}

// MCPUntil types /mcp until its report holds want (a server still
// starting is reported as such) and returns the screen.
func (s *TmuxSession) MCPUntil(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(HangLimit)
	for {
		s.Send("/mcp")
		screen := s.WaitFor("/mcp")
		for range 20 {
			if strings.Contains(screen, want) {
				return screen
			}
			time.Sleep(50 * time.Millisecond)
			screen = s.Screen()
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("/mcp never reported %q:\n%s", want, screen)
		}
	}
}
