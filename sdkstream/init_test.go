package sdkstream

import (
	"fmt"
	"testing"
)

// The init message lists the custom commands and skills the person may
// run, the agents and the skills, as Claude Code's does; empty lists stay
// lists.
func TestInitListsCommandsAgentsAndSkills(t *testing.T) {
	h := newHost(t, Config{Turn: echo, Init: Init{SessionID: "s1", SlashCommands: []string{"review", "start"},
		Agents: []string{"github-workflow"}}})
	h.send(user("hi"))
	init := h.until("result")[0]
	for key, want := range map[string]string{"slash_commands": "[review start]", "agents": "[github-workflow]", "skills": "[]"} {
		if got := fmt.Sprint(init[key]); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
}
