package acp

import (
	"encoding/json"
	"testing"
)

// commanderSession is a Session with custom commands (only Commands is used).
type commanderSession struct {
	Session
	cmds []Command
}

func (s commanderSession) Commands() []Command { return s.cmds }

// A session's custom commands are listed in available_commands_update with their descriptions and, where they take
// arguments, the hint; a session without any lists an empty array (not null).
func TestAvailableCommandsListTheCustomCommands(t *testing.T) {
	s := commanderSession{cmds: []Command{{Name: "review", Description: "Review a file", Hint: "[file]"}, {Name: "frontend:component", Description: "A component"}}}
	got, err := json.Marshal(availableCommands(s))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionUpdate":"available_commands_update","availableCommands":[{"description":"Review a file","input":{"hint":"[file]"},"name":"review"},{"description":"A component","name":"frontend:component"}]}`
	if !jsonSame(t, string(got), want) {
		t.Errorf("update\n%s\nwant\n%s", got, want)
	}
	empty, _ := json.Marshal(availableCommands(commanderSession{}))
	if !jsonSame(t, string(empty), `{"sessionUpdate":"available_commands_update","availableCommands":[]}`) {
		t.Errorf("no commands: %s", empty)
	}
}

func jsonSame(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
