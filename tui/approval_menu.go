package tui

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// approvalQuiet is how long the keyboard must have been idle, with the
// input empty, before an approval takes keys. Keys typed sooner, or while
// the input holds text, go to the input: a person typing a prompt when a
// question appears never answers it by accident.
const approvalQuiet = time.Second

// The answers of the approval menu, in the order it lists them.
const (
	choiceOnce     = iota // allow once
	choiceSession         // allow for this session
	choiceDeny            // deny
	choiceInstruct        // deny and say what to do instead
	choiceAlways          // allow, and remember beyond the session (a domain)
	numChoices
)

// menuChoices are the answers a question offers, in order: every answer
// for a call of the loop; for a question with its own text (whether to
// start a project's MCP server, remembered either way) yes or no; for a
// server's form, accept, type the values, or decline; for a server's page
// to open, open it or decline.
func menuChoices(question, plan, form, link bool, always string) []int {
	if link {
		return []int{choiceOnce, choiceDeny}
	}
	if form {
		return []int{choiceOnce, choiceInstruct, choiceDeny}
	}
	if always != "" && !question && !plan {
		return []int{choiceOnce, choiceSession, choiceAlways, choiceDeny, choiceInstruct}
	}
	if plan {
		return []int{choiceOnce, choiceSession, choiceInstruct}
	}
	if question {
		return []int{choiceOnce, choiceDeny}
	}
	return []int{choiceOnce, choiceSession, choiceDeny, choiceInstruct}
}

// approvalChoiceText is the label of choice; session names what "for this
// session" covers; question marks a question with its own text.
func approvalChoiceText(choice int, session string, question, plan, form, link bool) string {
	if link {
		if choice == choiceOnce {
			return "Open it in the browser"
		}
		return "Decline"
	}
	if form {
		switch choice {
		case choiceOnce:
			return "Accept (the defaults shown)"
		case choiceInstruct:
			return "Answer: type the values"
		}
		return "Decline"
	}
	if plan {
		switch choice {
		case choiceOnce:
			return "Approve, and go on in ask mode"
		case choiceSession:
			return "Approve, and go on in auto mode"
		}
		return "Keep planning, and say what to change"
	}
	if question {
		if choice == choiceOnce {
			return "Yes (remembered)"
		}
		return "No (remembered)"
	}
	switch choice {
	case choiceOnce:
		return "Allow once"
	case choiceSession:
		return session
	case choiceDeny:
		return "Deny"
	}
	return "Deny, and say what to do instead"
}

// pendingApproval is the question waiting for the person and the state of
// its menu.
type pendingApproval struct {
	req         approvalRequest
	choice      int    // the highlighted answer, 0..numChoices-1
	instructing bool   // the person chose to deny with instructions and types them
	text        []rune // the instructions typed so far
}

// approvalView is what a tool block shows of a waiting question: the
// highlighted answer, whether the menu takes keys now (armed), and the
// instructions being typed.
type approvalView struct {
	question    bool   // a question with its own text: yes or no
	plan        bool   // plan mode's question about a plan
	form        bool   // an MCP server's form (elicitation)
	link        bool   // an MCP server's page to open (URL-mode elicitation)
	session     string // the session answer's label, "" the default
	always      string // the always answer's label, "" offers none
	yes, no     string // a question with text's labels, "" the default
	choice      int
	armed       bool
	instructing bool
	text        string
}

// approvalArmMsg asks for a redraw once the keyboard has been quiet for
// approvalQuiet, when the menu may have started to take keys.
type approvalArmMsg struct{}

// approvalTakesKeys reports whether the waiting question's menu takes keys
// now: the input is empty and no key went to it in the last approvalQuiet
// (by the model's clock, m.now).
func (m *Model) approvalTakesKeys() bool {
	if m.approving == nil {
		return false
	}
	if m.approving.instructing {
		return true
	}
	return m.input.Value() == "" && m.now().Sub(m.lastKey) >= approvalQuiet
}

// armLater redraws once the keyboard has been quiet long enough for the
// waiting question to take keys.
func (m *Model) armLater() tea.Cmd {
	if m.approving == nil {
		return nil
	}
	wait := approvalQuiet - m.now().Sub(m.lastKey)
	if wait <= 0 {
		return nil
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return approvalArmMsg{} })
}

// syncApproval shows the menu's current state in the question's block.
func (m *Model) syncApproval() {
	p := m.approving
	if p == nil {
		return
	}
	if b := m.blocks[p.req.call.ID]; b != nil {
		b.setMenu(approvalView{question: p.req.text != "", plan: p.req.plan, form: p.req.form, link: p.req.link, session: p.req.session, always: p.req.always, yes: p.req.yes, no: p.req.no, choice: p.choice, armed: m.approvalTakesKeys(), instructing: p.instructing, text: string(p.text)})
	}
}

// approvalKey handles a key while a question waits. It reports false for a
// key the menu does not take, which then goes where it would without the
// question (the input, the turn's keys).
func (m *Model) approvalKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	p := m.approving
	switch msg.String() {
	case "esc", "ctrl+c":
		if p.instructing {
			if msg.String() == "esc" {
				p.instructing = false // back to the menu
				return nil, true
			}
		}
		// Esc and Ctrl+C are never typing: they deny and stop the turn;
		// a question with its own text is dismissed, not answered.
		cmd := m.answer(approvalAnswer{dismissed: p.req.text != ""})
		m.cancelTurn()
		return cmd, true
	}
	if p.instructing {
		return m.instructionKey(msg), true
	}
	if !m.approvalTakesKeys() {
		return nil, false
	}
	choices := menuChoices(p.req.text != "", p.req.plan, p.req.form, p.req.link, p.req.always)
	at := max(slices.Index(choices, p.choice), 0)
	key := msg.String()
	if n := int(key[0] - '0'); len(key) == 1 && n >= 1 && n <= len(choices) {
		// 1, 2, 3...: the answer of that number, as in Claude Code.
		p.choice, key = choices[n-1], "enter"
	}
	switch key {
	case "up", "ctrl+p":
		p.choice = choices[(at+len(choices)-1)%len(choices)]
	case "down", "ctrl+n":
		p.choice = choices[(at+1)%len(choices)]
	case "enter":
		switch p.choice {
		case choiceOnce:
			return m.answer(approvalAnswer{allow: true}), true
		case choiceSession:
			return m.answer(approvalAnswer{allow: true, forSession: true}), true
		case choiceAlways:
			return m.answer(approvalAnswer{allow: true, always: true}), true
		case choiceDeny:
			return m.answer(approvalAnswer{}), true
		}
		p.instructing, p.text = true, nil
	default:
		return nil, false // typing: it goes to the input, and the menu waits
	}
	return nil, true
}

// instructionKey edits the instructions of a denial: Enter sends them with
// the denial (an empty text denies plainly), Backspace and Ctrl+U delete.
func (m *Model) instructionKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.approving
	switch msg.String() {
	case "enter":
		return m.answer(approvalAnswer{instructions: strings.TrimSpace(string(p.text))})
	case "backspace":
		if len(p.text) > 0 {
			p.text = p.text[:len(p.text)-1]
		}
	case "ctrl+u":
		p.text = nil
	default:
		if msg.Text != "" {
			p.text = append(p.text, []rune(msg.Text)...)
		}
	}
	return nil
}

// approvalPaste takes pasted text into the instructions being typed; it
// reports false when none are (the paste goes to the input).
func (m *Model) approvalPaste(text string) bool {
	if m.approving == nil || !m.approving.instructing {
		return false
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", " "), "\n", " ")
	m.approving.text = append(m.approving.text, []rune(text)...)
	return true
}
