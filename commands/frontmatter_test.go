package commands

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The front matter of published agents and skills, as Claude Code reads
// it: block scalars reach the reader as their text, lists, numbers,
// booleans and maps keep their kinds.
func TestFieldsReadsYAML(t *testing.T) {
	f, err := Fields(`name: reviewer
description: >
  Reviews code.
  Use after every change.
tools:
  - Read
  - Grep
maxTurns: 12
background: false
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ./check.sh
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := String(f, "description"); got != "Reviews code. Use after every change." {
		t.Errorf("description = %q, want the folded text", got)
	}
	if got := List(f, "tools"); !reflect.DeepEqual(got, []string{"Read", "Grep"}) {
		t.Errorf("tools = %q", got)
	}
	if n, set, err := Int(f, "max-turns"); n != 12 || !set || err != nil {
		t.Errorf("maxTurns read as max-turns = %d, %v, %v", n, set, err)
	}
	if b, set, err := Bool(f, "background"); b || !set || err != nil {
		t.Errorf("background = %v, %v, %v", b, set, err)
	}
	if _, ok := f["hooks"].(map[string]any); !ok {
		t.Errorf("hooks = %#v, want a map", f["hooks"])
	}
}

// YAML refuses an unquoted value holding ": ", which Claude Code loads:
// the value is quoted and read again, continuation lines included, while
// the other fields keep their kinds.
func TestFieldsQuotesPlainValuesYAMLRefuses(t *testing.T) {
	f, err := Fields("name: deployer\ndescription: Use when: the build fails. Examples:\n  <example>Context: CI is red</example>\nmaxTurns: 3\ntools: Read, Bash\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := String(f, "description"), "Use when: the build fails. Examples: <example>Context: CI is red</example>"; got != want {
		t.Errorf("description = %q, want %q", got, want)
	}
	if n, _, _ := Int(f, "maxTurns"); n != 3 || String(f, "tools") != "Read, Bash" {
		t.Errorf("the other fields: %v", f)
	}
	// A block scalar is never mistaken for text to quote.
	f, err = Fields("description: |\n  Line one: first.\n  Line two.\nnote: a: b\n")
	if err != nil || String(f, "description") != "Line one: first.\nLine two." || String(f, "note") != "a: b" {
		t.Errorf("%q, %v", f, err)
	}
}

func TestFieldsValues(t *testing.T) {
	f, err := Fields("a: yes\nb: Off\nc: 0\nd: maybe\nname: 3000\nhint: [topic: foo | bar]\nallowed-tools: Read Grep Bash(git diff *)\n")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"a": true, "b": false, "c": false} {
		if got, set, err := Bool(f, k); got != want || !set || err != nil {
			t.Errorf("Bool(%s) = %v, %v, %v", k, got, set, err)
		}
	}
	if _, _, err := Bool(f, "d"); err == nil {
		t.Error("maybe read as a bool")
	}
	if String(f, "name") != "3000" {
		t.Errorf("a number as a name: %q", String(f, "name"))
	}
	if got := ToolList(f, "allowed-tools"); strings.Join(got, "|") != "Read|Grep|Bash(git diff *)" {
		t.Errorf("space-separated allowed-tools = %q", got)
	}
	if _, ok := Get(f, "missing"); ok {
		t.Error("a missing field found")
	}
	if got := Hint(map[string]any{"argument-hint": []string{"file"}}); got != "[file]" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint(map[string]any{"argument-hint": f["hint"]}); got != "[topic: foo | bar]" {
		t.Errorf("Hint of a list holding a map = %q", got)
	}
}

func TestFrontMatterSplits(t *testing.T) {
	cases := []struct{ text, front, body string }{
		{"---\na: b\n---\nbody\n", "a: b", "body\n"},
		{"--- \r\na: b\r\n---  \r\nbody", "a: b", "body"},
		{"no front matter", "", "no front matter"},
		{"---\n---\nbody", "", "body"},
	}
	for _, c := range cases {
		front, body, err := FrontMatter(c.text)
		if err != nil || front != c.front || body != c.body {
			t.Errorf("FrontMatter(%q) = %q, %q, %v", c.text, front, body, err)
		}
	}
	if _, _, err := FrontMatter("---\na: b\n"); err == nil {
		t.Error("an unclosed front matter was accepted")
	}
}

// Claude Code's documented hint "[pr-number] [priority]" is no YAML: it
// is read as the text written.
func TestFieldsTakesClaudeCodesArgumentHint(t *testing.T) {
	f, err := Fields("argument-hint: [pr-number] [priority] [assignee]\ndescription: Review a PR\n")
	if err != nil || Hint(f) != "[pr-number] [priority] [assignee]" || String(f, "description") != "Review a PR" {
		t.Errorf("%v, %v", f, err)
	}
}

// Anthropic's published agents give a description that runs over
// unindented lines YAML cannot read ("<example>", "user: ..."): Claude Code
// loads them, and so does Fields, the description whole and the fields
// after it intact.
func TestFieldsReadsADescriptionOverUnindentedLines(t *testing.T) {
	front := "name: agent-creator\ndescription: Use this agent when asked to \"create an agent\". Examples:\n\n<example>\nContext: a first draft\nuser: \"Please create an agent\"\nassistant: \"I will use the agent-creator agent.\"\n</example>\n\nmodel: inherit\ncolor: magenta\ntools: [\"Write\", \"Read\"]"
	f, err := Fields(front)
	if err != nil {
		t.Fatal(err)
	}
	desc := String(f, "description")
	if !strings.HasPrefix(desc, "Use this agent when asked to \"create an agent\". Examples:") || !strings.Contains(desc, "user: \"Please create an agent\"") || !strings.HasSuffix(desc, "</example>") {
		t.Errorf("description = %q", desc)
	}
	if String(f, "model") != "inherit" || String(f, "color") != "magenta" || String(f, "tools") != "Write, Read" || String(f, "name") != "agent-creator" {
		t.Errorf("fields = %v", f)
	}
	if _, ok := f["user"]; ok {
		t.Error("a line of the description became a field")
	}
}

// Front matter a repository may hold to stall agent's start: thousands of
// keys of one name (YAML's decoder compares every pair and words an error
// for each, minutes and gigabytes), thousands of keys, aliases that
// expand a billion times, nesting past YAML's depth. Each is read or
// refused quickly; those that are no YAML mapping are refused.
func TestFieldsRefusesPathologicalFrontMatterQuickly(t *testing.T) {
	laughs := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i, prev := 0, "a"; i < 8; i, prev = i+1, string(rune('b'+i)) {
		n := string(rune('b' + i))
		laughs += n + ": &" + n + " [*" + strings.Repeat(prev+", *", 8) + prev + "]\n"
	}
	var many strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&many, "k%d: v\n", i)
	}
	for _, tc := range []struct {
		name, front string
		refused     bool
	}{
		{"one key 6000 times", strings.Repeat("a: b\n", 6000), true},
		{"lines under a description", "description: x\n" + strings.Repeat("a: b: c\n", 6000), false},
		{"6000 keys", many.String(), true},
		{"a billion laughs", laughs, true},
		{"nesting", strings.Repeat("[", 20000), true},
		{"a key twice", "name: x\ntools: a\nname: y\n", true},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Fields(tc.front)
			done <- err
		}()
		select {
		case err := <-done:
			if (err != nil) != tc.refused {
				t.Errorf("%s: error %v, want refused %v", tc.name, err, tc.refused)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Fields still runs after 10 s", tc.name)
		}
	}
}
