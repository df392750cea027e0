package tui

import (
	"fmt"
	"github.com/agent-dev/agent/providers"
	"strings"
	"testing"
	"time"
)

// statusCases are status lines in the situations the golden files pin.
func statusCases(st *styles) map[string]*status {
	full := func() *status {
		s := newStatus(st, "gpt-4.1-mini", "/home/ada/src/github.com/agent-dev/agent/internal/providers", "Fix the flaky approval test", 0)
		s.home = "/home/ada" // not the machine's
		s.in, s.out, s.context = 12_345, 1_234, 52_400
		return s
	}
	running := full()
	running.setRunning(true, 12*time.Second, 0)
	unknown := full()
	unknown.setModel("my-local-model", 0)
	warn := full()
	warn.warning = "YOLO: no approvals"
	warn.setRunning(true, 125*time.Second, 5)
	mode := full()
	mode.mode = "auto"
	shells := full()
	shells.mode, shells.shells = "ask", 2
	idle := newStatus(st, "claude-sonnet-4", "/home/ada", "3f9c2a1e", 0)
	idle.home = "/home/ada"
	return map[string]*status{
		"full":      full(),
		"running":   running,
		"nocontext": unknown,
		"warning":   warn,
		"idle":      idle,
		"mode":      mode,
		"shells":    shells,
	}
}

func TestStatusGolden(t *testing.T) {
	for name, s := range statusCases(goldenStyles()) {
		for _, width := range []int{50, 100} {
			t.Run(fmt.Sprintf("%s_%d", name, width), func(t *testing.T) {
				out := s.Render(width)
				if w := textWidth(out); w != width || strings.Contains(out, "\n") {
					t.Fatalf("status is %d cells wide (want %d) or has a line break: %q", w, width, out)
				}
				requireGolden(t, fmt.Sprintf("status_%s_%d", name, width), out)
			})
		}
	}
}

func TestStatusExactWidth(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for name, s := range statusCases(newStyles(dark)) {
			for width := 0; width <= 160; width++ {
				out := s.Render(width)
				if w := textWidth(out); w != width || strings.Contains(out, "\n") {
					t.Fatalf("%s at %d: %d cells wide or wrapped: %q", name, width, w, out)
				}
			}
		}
	}
}

// TestStatusDropOrder narrows the line step by step and checks that the
// segments go in the documented order: session, tokens, directory,
// context, model; the spinner and the warning stay.
func TestStatusDropOrder(t *testing.T) {
	s := statusCases(goldenStyles())["warning"]
	marks := []struct{ name, text string }{
		{"session", "Fix the flaky"},
		{"tokens", "↑12.3k"},
		{"directory", "~/"},
		{"context", "ctx 5%"},
		{"model", "gpt-4.1-mini"},
	}
	gone := 0
	for width := 160; width >= 31; width-- { // 31: the warning and the spinner alone
		out := s.Render(width)
		if !strings.Contains(out, "YOLO: no approvals") || !strings.Contains(out, "⠴ 2m05s") {
			t.Fatalf("at %d the warning or the spinner is gone: %q", width, out)
		}
		for i, m := range marks {
			has := strings.Contains(out, m.text)
			if i < gone && has {
				t.Fatalf("at %d %s is back: %q", width, m.name, out)
			}
			if !has && i >= gone {
				if i != gone {
					t.Fatalf("at %d %s went before %s: %q", width, m.name, marks[gone].name, out)
				}
				gone++
			}
		}
	}
	if gone != len(marks) {
		t.Fatalf("only %d segments went at width 31", gone)
	}
}

func TestStatusUsage(t *testing.T) {
	s := newStatus(goldenStyles(), "my-local-model", "/srv/app", "s1", 10_000)
	s.addUsage(1_000, 200)
	s.addUsage(2_000, 300)
	if s.in != 3_000 || s.out != 500 || s.context != 2_300 {
		t.Fatalf("after two steps in=%d out=%d context=%d", s.in, s.out, s.context)
	}
	if out := s.Render(80); !strings.Contains(out, "↑3k ↓500 · ctx 23%") {
		t.Fatalf("status %q lacks the tokens and the context of the given window", out)
	}
	s.resetTokens()
	if out := s.Render(80); strings.Contains(out, "↑") || strings.Contains(out, "ctx") {
		t.Fatalf("status after reset %q", out)
	}
	s.setRunning(true, 3*time.Second, 1)
	if out := s.Render(80); !strings.Contains(out, "⠙ 3s") {
		t.Fatalf("running status %q", out)
	}
	s.setRunning(false, 0, 0)
	if out := s.Render(80); strings.Contains(out, "⠙") {
		t.Fatalf("idle status %q", out)
	}
}

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4.1", 1_047_576},
		{"GPT-4.1-mini", 1_047_576},
		{"gpt-4o-mini", 128_000},
		{"openai/gpt-4o", 128_000},
		{"o3", 200_000},
		{"o4-mini", 200_000},
		{"claude-sonnet-4-20250514", 200_000},
		{"anthropic/claude-3-5-haiku", 200_000},
		{"qwen2.5-coder:7b", 32_768},
		{"llama3.1:8b", 131_072},
		{"meta-llama/Llama-3.3-70B-Instruct", 131_072},
		{"llama3:8b", 8_192},
		{"deepseek-chat", 128_000},
		{"gemini-2.5-pro", 1_048_576},
		{"my-local-model", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := providers.ContextWindow(tt.model); got != tt.want {
			t.Errorf("ContextWindow(%q) = %d, want %d", tt.model, got, tt.want)
		}
	}
}

func TestStatusFormatting(t *testing.T) {
	for n, want := range map[int]string{0: "0", 950: "950", 1000: "1k", 12_345: "12.3k", 999_999: "1000k", 1_234_567: "1.2M"} {
		if got := formatTokens(n); got != want {
			t.Errorf("formatTokens(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0s", 12 * time.Second: "12s", 61 * time.Second: "1m01s", 3600 * time.Second: "1h00m"} {
		if got := formatElapsed(d); got != want {
			t.Errorf("formatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
	homes := []struct{ dir, home, want string }{
		{"/home/ada", "/home/ada", "~"},
		{"/home/ada/src", "/home/ada/", "~/src"},
		{"/home/adam/src", "/home/ada", "/home/adam/src"},
		{"/srv", "", "/srv"},
	}
	for _, h := range homes {
		if got := shortenHome(h.dir, h.home); got != h.want {
			t.Errorf("shortenHome(%q, %q) = %q, want %q", h.dir, h.home, got, h.want)
		}
	}
	if got := cutMiddle("~/src/github.com/agent-dev/agent", 16); got != "~/src…-dev/agent" || textWidth(got) > 16 {
		t.Errorf("cutMiddle = %q", got)
	}
	if a, b := spinnerFrame(0), spinnerFrame(-1); a != "⠋" || b != "⠏" {
		t.Errorf("spinner frames %q %q", a, b)
	}
}
