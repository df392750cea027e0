package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/lsp"
	"github.com/agent-dev/agent/tools"
)

// How much of a tool's result a block shows.
const (
	foldedLines   = 3   // result lines under a folded block
	expandedLines = 200 // result lines under an expanded block; the rest is counted
)

// toolState is where a tool call is in its life.
type toolState int

const (
	toolRunning toolState = iota // started, no result yet (possibly waiting for approval)
	toolOK                       // finished with a normal result
	toolFailed                   // finished with an error result
	toolDenied                   // the person (or the policy) did not allow it
)

// toolBlock is one tool call in the conversation pane: a header line (status
// icon or spinner, tool name, main argument, duration), then the first lines
// of the result, all of them up to expandedLines when expanded, or, while
// the call waits for approval, the question, the whole command and the keys.
//
// It is pure state: the top-level model feeds it the call's events, the
// spinner frame and the person's toggles. Render caches its output per width;
// every setter invalidates the cache.
type toolBlock struct {
	st   *styles
	id   string // the call's ID, to match ToolCallFinished
	name string // the tool's name

	summary  string   // the main argument on one line
	full     string   // what an approval shows: the whole command, or the arguments
	commands bool     // the tool runs commands: its question asks about "this command"
	progress []string // a running call's last progress lines (bash: its output), sanitised

	state    toolState
	output   []string // result lines, sanitised, at most expandedLines
	total    int      // number of result lines, also those not kept
	dur      time.Duration
	exitCode int // non-zero exit status of a command, 0 otherwise
	// why is who or what refused a denied call (Meta[tools.MetaDecision]:
	// "denied by hook PreToolUse", "denied by the person, with
	// instructions"); the result's lines say what the model was told.
	why string

	diff  []string   // a change's unified diff (edits), shown in place of the result
	diags lsp.Report // the diagnostics the change introduced, shown under the result

	waiting  bool
	menu     approvalView // the question's menu while waiting
	question string       // the approval question when not the default one
	warning  string       // what makes the waiting call risky, shown first
	origin   string       // the subagent whose call this is ("" for the session's own)
	child    *childView   // the subagent a task call started; nil for other calls
	expanded bool
	selected bool
	frame    int

	cacheOK    bool
	cacheWidth int
	cache      string
}

var _ item = (*toolBlock)(nil)

// newToolBlock returns a running block for the call id of tool name, read
// as its tool's definition summarises it.
func newToolBlock(st *styles, id, name string, sum tools.Summary) *toolBlock {
	return &toolBlock{st: st, id: id, name: name, summary: oneLine(sum.Title), full: sum.Full}
}

// progressLines is how many lines of a running call's progress its block
// shows.
const progressLines = 5

// setProgress shows text, a running call's progress (it replaces the
// progress shown before), under its header; its last progressLines lines.
func (b *toolBlock) setProgress(text string) {
	lines, _ := outputLines(text, 1<<20)
	if len(lines) > progressLines {
		lines = lines[len(lines)-progressLines:]
	}
	b.progress = lines
	b.cacheOK = false
}

// finish records the call's result: content is what the model read, d how
// long the call took, meta the tool's details. A result with meta
// tools.MetaDenied true shows as denied; a non-zero tools.MetaExitCode
// shows as failed, next to the duration. The diagnostics the change introduced (meta
// "diagnostics", an lsp.Report or its JSON) show under the result, and
// their <diagnostics> text is left out of the result's lines. finish ends
// waiting.
func (b *toolBlock) finish(content string, isError bool, d time.Duration, meta map[string]any) {
	switch {
	case isError && meta[tools.MetaDenied] == true:
		b.state = toolDenied
	case isError:
		b.state = toolFailed
	default:
		b.state = toolOK
	}
	b.dur = d
	b.exitCode = metaInt(meta, tools.MetaExitCode)
	b.why, _ = meta[tools.MetaDecision].(string)
	if b.state == toolOK && b.exitCode != 0 {
		b.state = toolFailed // a command that failed is no success, though the model reads it as a result
	}
	if b.state == toolOK && b.child != nil && b.child.stopped() != "" {
		b.state = toolFailed // a subagent cancelled or cut short: the model reads what it found, the person sees it did not finish
	}
	if d, ok := meta[tools.MetaDiff].(string); ok && d != "" {
		b.setDiff(d)
	}
	if r, ok := lsp.ReportOf(meta); ok && !r.Empty() {
		b.setDiagnostics(r)
		content, _ = lsp.SplitText(content, r)
	}
	b.output, b.total = outputLines(content, expandedLines)
	b.waiting, b.progress = false, nil
	b.cacheOK = false
}

// running reports whether the call has no result yet.
func (b *toolBlock) running() bool { return b.state == toolRunning }

// setWaiting shows (true) or hides the inline approval question. It has an
// effect only while the call runs.
func (b *toolBlock) setWaiting(on bool) { b.waiting = on; b.cacheOK = false }

// setMenu shows the state of the waiting question's menu.
func (b *toolBlock) setMenu(v approvalView) {
	if b.menu != v {
		b.menu = v
		b.cacheOK = false
	}
}

// diffFold is how many diff lines a folded block shows.
const diffFold = 20

// setDiff gives the block a change to show: a unified diff, shown coloured
// in place of the result (and in the question while it waits).
func (b *toolBlock) setDiff(diff string) {
	b.diff = strings.Split(strings.TrimRight(sanitizeDiff(diff), "\n"), "\n")
	b.cacheOK = false
}

// sanitizeDiff drops escape sequences and carriage returns from a diff.
func sanitizeDiff(diff string) string {
	return strings.ReplaceAll(ansi.Strip(diff), "\r", "")
}

// diffLines renders the diff at width, folded to diffFold lines unless
// expanded.
func (b *toolBlock) diffLines(width int) []string {
	show := len(b.diff)
	if !b.expanded && show > diffFold {
		show = diffFold
	}
	lines := make([]string, 0, show+1)
	for _, l := range b.diff[:show] {
		l = cutTo(strings.ReplaceAll(l, "\t", "    "), width)
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			l = b.st.DiffHunk.Render(l)
		case strings.HasPrefix(l, "+"):
			l = b.st.DiffAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			l = b.st.DiffDel.Render(l)
		default:
			l = b.st.ToolOutput.Render(l)
		}
		lines = append(lines, l)
	}
	if rest := len(b.diff) - show; rest > 0 {
		lines = append(lines, b.st.Dim.Render(fmt.Sprintf("… +%d diff %s (ctrl+o expands)", rest, plural(rest, "line", "lines"))))
	}
	return lines
}

// setExpanded shows up to expandedLines of the result (true) or the first
// foldedLines (false).
func (b *toolBlock) setExpanded(on bool) { b.expanded = on; b.cacheOK = false }

// setSelected draws (true) or removes the selection marker.
func (b *toolBlock) setSelected(on bool) { b.selected = on; b.cacheOK = false }

// setFrame sets the spinner frame shown while the call runs; any integer
// (the model's tick count) is fine. It invalidates the cache only when the
// block shows a spinner.
func (b *toolBlock) setFrame(i int) {
	if b.frame != i {
		b.frame = i
		if b.state == toolRunning && !b.waiting {
			b.cacheOK = false
		}
	}
}

// Render implements item.
func (b *toolBlock) Render(width int) string {
	if b.cacheOK && b.cacheWidth == width {
		return b.cache
	}
	gutter := "  "
	if b.selected {
		gutter = b.st.ToolSelected.Render("▌") + " "
	}
	inner := max(width-2, 1)
	lines := []string{b.header(inner)}
	switch {
	case b.state == toolRunning && b.waiting:
		lines = append(lines, b.approval(inner-2)...)
	case b.state == toolRunning && b.child != nil:
		lines = append(lines, b.child.runningLines(b.st, inner-2, b.expanded)...)
	case b.state == toolRunning:
		for _, l := range b.progress {
			lines = append(lines, b.st.Dim.Render(cutTo(l, inner-2)))
		}
	case b.state == toolDenied && b.total > 0:
		lines = append(lines, b.result(inner-2)...) // why, in the words the model read
	case b.state == toolOK || b.state == toolFailed:
		if b.child != nil && b.expanded {
			lines = append(lines, b.child.stepLines(b.st, inner-2)...)
		}
		lines = append(lines, b.result(inner-2)...)
		lines = append(lines, b.diagLines(inner-2)...)
	}
	for i, l := range lines {
		if i > 0 {
			l = "  " + l
		}
		lines[i] = gutter + l
	}
	b.cache = strings.Join(fitWidth(lines, width), "\n")
	b.cacheWidth, b.cacheOK = width, true
	return b.cache
}

// header is the first line: icon, name, main argument, tail.
func (b *toolBlock) header(width int) string {
	var icon, tail string
	switch b.state {
	case toolRunning:
		if b.waiting {
			icon = b.st.Approval.Render("?")
		} else {
			icon = b.st.ToolRunning.Render(spinnerFrame(b.frame))
		}
	case toolOK:
		icon = b.st.ToolOK.Render("✓")
		tail = b.st.Dim.Render(b.tailText())
	case toolFailed:
		icon = b.st.ToolFailed.Render("✗")
		tail = b.st.Dim.Render(b.tailText())
	case toolDenied:
		icon = b.st.ToolFailed.Render("✗")
		tail = b.st.ToolFailed.Render(deniedTail(b.why))
	}
	head := icon + " "
	used := 2 + textWidth(b.name)
	if b.origin != "" { // a subagent's call, asked about in the session's pane
		label := "↳ " + cutTo(b.origin, 30) + " ›"
		head += b.st.Dim.Render(label) + " "
		used += textWidth(label) + 1
	}
	head += b.st.ToolName.Render(b.name)
	if tail != "" {
		used += 2 + textWidth(tail)
	}
	// A call waiting for approval shows its whole command below instead.
	if room := width - used - 1; room >= 4 && b.summary != "" && !b.waiting {
		head += " " + b.st.ToolArg.Render(cutTo(b.summary, room))
	}
	if tail != "" {
		head += "  " + tail
	}
	return cutTo(head, width)
}

// deniedTail is the header's tail of a denied call: who refused it, when
// the decision says so in words of its own ("denied by hook PreToolUse").
func deniedTail(why string) string {
	switch {
	case strings.HasPrefix(why, "denied") && len(why) <= 60:
		return why
	case strings.HasPrefix(why, "hook"):
		return "denied by a hook"
	}
	return "denied"
}

// tailText is the exit status and duration after a finished call's header.
func (b *toolBlock) tailText() string {
	var parts []string
	if b.exitCode > 0 { // -1 is a signal, and the content says which
		parts = append(parts, "exit "+strconv.Itoa(b.exitCode))
	}
	if b.child != nil && b.child.stopped() != "" {
		parts = append(parts, b.child.stopped())
	}
	if b.dur > 0 {
		parts = append(parts, formatDuration(b.dur))
	}
	return strings.Join(parts, " · ")
}

// result is the body of a finished call at width columns.
func (b *toolBlock) result(width int) []string {
	if len(b.diff) > 0 && b.state == toolOK {
		return b.diffLines(width)
	}
	if b.total == 0 {
		return []string{b.st.Dim.Render("(no output)")}
	}
	show := min(len(b.output), foldedLines)
	if b.expanded || b.total == foldedLines+1 { // a line rather than "… +1 line"
		show = len(b.output)
	}
	lines := make([]string, 0, show+1)
	for _, l := range b.output[:show] {
		if !b.expanded && b.state != toolDenied {
			lines = append(lines, b.st.ToolOutput.Render(cutTo(l, width)))
			continue
		}
		// Expanded, and a refusal's reason, the lines wrap: nothing is cut
		// at the pane's edge.
		for _, w := range wrapText(l, max(width, 1)) {
			lines = append(lines, b.st.ToolOutput.Render(w))
		}
	}
	if rest := b.total - show; rest > 0 {
		note := fmt.Sprintf("… +%d %s", rest, plural(rest, "line", "lines"))
		if b.expanded {
			note = fmt.Sprintf("… %d more %s not shown", rest, plural(rest, "line", "lines"))
		}
		lines = append(lines, b.st.Dim.Render(note))
	}
	return lines
}

// approval is the body of a call that waits for the person: the question,
// the whole command wrapped, and the keys.
func (b *toolBlock) approval(width int) []string {
	question := b.question
	if question == "" {
		question = b.defaultQuestion()
	}
	session := "Allow for this session"
	var lines []string
	for _, l := range wrapText("⚠ "+b.warning, max(width, 1)) {
		if b.warning != "" {
			lines = append(lines, b.st.Approval.Render(l))
		}
	}
	if len(b.diff) > 0 {
		question = "Allow this change to " + b.summary + "?"
	}
	for _, l := range wrapText(question, max(width, 1)) { // the whole question, never cut
		lines = append(lines, b.st.Approval.Render(l))
	}
	if len(b.diff) > 0 {
		lines = append(lines, b.diffLines(width)...)
		session = "Allow edits for this session"
	} else {
		bar := b.st.Dim.Render("│") + " "
		for _, l := range wrapText(b.full, max(width-2, 1)) {
			lines = append(lines, bar+b.st.ToolArg.Render(l))
		}
	}
	return append(lines, b.menuLines(session, width)...)
}

// defaultQuestion is what a call's approval asks when nobody gave the
// question's text.
func (b *toolBlock) defaultQuestion() string {
	if b.commands {
		return "Allow " + b.name + " to run this command?"
	}
	return "Allow " + b.name + " to run?"
}

// menuLines are the question's answers, the highlighted one marked, and a
// line of keys; while the person types the instructions of a denial, the
// text typed so far instead.
func (b *toolBlock) menuLines(session string, width int) []string {
	key := func(k, what string) string { return b.st.Key.Render(k) + b.st.Dim.Render(" "+what) }
	v := b.menu
	if v.instructing {
		prompt, send := "Deny, and tell the model what to do instead:", "deny with these words"
		if v.plan {
			prompt = "Say what to change in the plan:"
		}
		if v.form {
			prompt, send = "Type the values as name=value; name=value (one field: its value alone):", "send"
		}
		return append([]string{b.st.Approval.Render(cutTo(prompt, width))},
			append(wrapText("› "+v.text+"█", max(width, 1)),
				joinWrapped([]string{key("enter", send), key("esc", "back")}, b.st.Dim.Render(" · "), width)...)...)
	}
	var lines []string
	if v.session != "" {
		session = v.session
	}
	choices := menuChoices(v.question, v.plan, v.form, v.link, v.always)
	for i, c := range choices {
		label := approvalChoiceText(c, session, v.question, v.plan, v.form, v.link)
		if c == choiceAlways {
			label = v.always
		}
		if v.question && v.yes != "" {
			label = map[int]string{choiceOnce: v.yes, choiceDeny: v.no}[c]
		}
		label = fmt.Sprintf("%d. %s", i+1, label) // its key
		switch {
		case c == v.choice && v.armed:
			lines = append(lines, b.st.Key.Render(cutTo("› "+label, width)))
		case c == v.choice: // the menu takes no keys yet: no highlight
			lines = append(lines, b.st.Dim.Render(cutTo("› "+label, width)))
		default:
			lines = append(lines, b.st.Dim.Render(cutTo("  "+label, width)))
		}
	}
	if !v.armed {
		for _, l := range wrapText("Typing goes to the prompt: answer with ↑/↓ and enter once the input is empty and the keyboard rests a second.", max(width, 1)) {
			lines = append(lines, b.st.Dim.Render(l))
		}
		return lines
	}
	esc := key("esc", "deny and stop the turn")
	if v.form || v.link {
		esc = key("esc", "cancel and stop the turn")
	} else if v.question && v.no != "" {
		esc = key("esc", strings.ToLower(v.no[:1])+v.no[1:])
	} else if v.question {
		esc = key("esc", "not now (asked again next start)")
	}
	return append(lines, joinWrapped([]string{key("↑/↓", "choose"), key("enter", "answer"), key(fmt.Sprintf("1-%d", len(choices)), "answer that one"), esc},
		b.st.Dim.Render(" · "), width)...)
}

// plural picks the singular or plural word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// metaInt reads an integer from a tool's meta, whether it came straight from
// the tool (int) or through JSON (float64); 0 when absent.
func metaInt(meta map[string]any, key string) int {
	switch v := meta[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// formatDuration prints a tool's duration compactly: 35ms, 1.2s, 2m05s.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	default:
		return formatElapsed(d)
	}
}

// restyle drops the cached rendering (the styles changed).
func (b *toolBlock) restyle() { b.cacheOK = false }
