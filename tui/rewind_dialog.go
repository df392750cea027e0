package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// rewindStage is where the rewind dialog is.
type rewindStage int

const (
	rewindList    rewindStage = iota // the session's prompts
	rewindScopes                     // what to restore of the chosen one
	rewindPreview                    // the files a restore of the code changes
	rewindBusy                       // reading, restoring or summarizing
)

// rewindOption is one entry of the dialog's menus.
type rewindOption struct {
	label, desc string
	scope       RewindScope
	force       bool // restore the files changed outside the agent too
	cancel      bool // close the dialog
}

// scopeOptions is the menu of what to restore, Claude Code's.
var scopeOptions = []rewindOption{
	{label: "Restore code and conversation", desc: "files and conversation go back to before this prompt", scope: RewindBoth},
	{label: "Restore conversation", desc: "the conversation goes back; the files stay", scope: RewindConversation},
	{label: "Restore code", desc: "the files go back; the conversation goes on", scope: RewindCode},
	{label: "Summarize from here", desc: "what followed this prompt becomes a summary", scope: RewindSummarize},
	{label: "Cancel", cancel: true},
}

// rewindDialog is /rewind (and Esc Esc): the session's prompts, each with
// when it was sent and whether its turn changed files; then, for the one
// chosen, what to restore; then, before files are written, the preview of
// what changes. It replaces the conversation pane while it is open.
type rewindDialog struct {
	st      *styles
	now     time.Time             // the clock, for the prompts' times
	session string                // the session whose prompts are listed
	items   []sessions.Checkpoint // nil until read
	err     string
	stage   rewindStage
	cursor  int // the prompt chosen, index into items
	choice  int // the entry chosen in the stage's menu
	scope   RewindScope
	plan    *Rewound // the preview, once read
	// busy says what is under way, previewing whether it is the preview;
	// cancel, when not nil, abandons it (a preview, a summary: Esc), and
	// cancelled says Esc did.
	busy       string
	previewing bool
	cancel     context.CancelFunc
	cancelled  bool
}

// chosen is the checkpoint of the prompt the cursor is on.
func (d *rewindDialog) chosen() (sessions.Checkpoint, bool) {
	if d.cursor < 0 || d.cursor >= len(d.items) {
		return sessions.Checkpoint{}, false
	}
	return d.items[d.cursor], true
}

// options is the menu of the stage: the scopes, or the preview's choices.
func (d *rewindDialog) options() []rewindOption {
	switch d.stage {
	case rewindScopes:
		return scopeOptions
	case rewindPreview:
		return previewOptions(d.plan, d.scope)
	}
	return nil
}

// previewOptions are the preview's choices: restore, restore also the
// files changed outside the agent (when there are any), cancel.
func previewOptions(plan *Rewound, scope RewindScope) []rewindOption {
	if plan == nil {
		return []rewindOption{{label: "Cancel", cancel: true}}
	}
	var out []rewindOption
	switch {
	case len(plan.Kept) > 0:
		out = []rewindOption{
			{label: "Restore all but those changed outside the agent", scope: scope},
			{label: "Restore all, those changed outside the agent too", scope: scope, force: true},
		}
	case len(plan.Changes) > 0:
		out = []rewindOption{{label: "Restore", scope: scope}}
	case scope == RewindBoth:
		out = []rewindOption{{label: "Restore the conversation", scope: scope}}
	}
	return append(out, rewindOption{label: "Cancel", cancel: true})
}

// move moves the cursor of the stage by delta: the prompt in the list,
// the entry in a menu.
func (d *rewindDialog) move(delta int) {
	switch d.stage {
	case rewindList:
		if len(d.items) > 0 {
			d.cursor = min(max(d.cursor+delta, 0), len(d.items)-1)
		}
	case rewindScopes, rewindPreview:
		d.choice = min(max(d.choice+delta, 0), len(d.options())-1)
	}
}

// Render is the whole dialog at width: a header and the stage's lines.
func (d *rewindDialog) Render(width int) string {
	lines, _ := d.lines()
	return strings.Join(fitWidth(cutAll(lines, width), width), "\n")
}

// View is the dialog in width x height, the chosen line kept in view under
// the header.
func (d *rewindDialog) View(width, height int) string {
	lines, focus := d.lines()
	lines = cutAll(lines, width)
	if len(lines) > height && height > 1 {
		room := height - 1
		first := 1
		if focus >= first+room {
			first = focus - room + 1
		}
		lines = append(lines[:1:1], lines[first:min(first+room, len(lines))]...)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines[:height], "\n")
}

// cutAll cuts each line to width.
func cutAll(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = cutTo(l, width)
	}
	return lines
}

// lines are the dialog's lines, uncut, and the index of the chosen one.
func (d *rewindDialog) lines() ([]string, int) {
	switch d.stage {
	case rewindScopes:
		return d.scopeLines()
	case rewindPreview:
		return d.previewLines()
	case rewindBusy:
		keys := ""
		if d.cancel != nil && !d.cancelled {
			keys = "  esc cancel"
		}
		return []string{d.header("Rewind", keys), d.st.Dim.Render(d.busy)}, 1
	}
	return d.listLines()
}

// header is the dialog's first line: a title and the keys.
func (d *rewindDialog) header(title, keys string) string {
	return d.st.ToolName.Render(title) + d.st.Dim.Render(keys)
}

// menuLine is a line of a list or menu, marked when it is the chosen one.
func (d *rewindDialog) menuLine(text string, chosen bool) string {
	if chosen {
		return d.st.ToolSelected.Render("▌ " + text)
	}
	return "  " + text
}

// listLines is the session's prompts, oldest first: number, time, a mark
// on those whose turn changed files (with how many), first line.
func (d *rewindDialog) listLines() ([]string, int) {
	lines := []string{d.header("Rewind to before a prompt", "  ↑/↓ choose · enter select · esc close")}
	switch {
	case d.err != "":
		return append(lines, d.st.Error.Render(d.err)), 1
	case d.items == nil:
		return append(lines, d.st.Dim.Render("Loading…")), 1
	case len(d.items) == 0:
		return append(lines, d.st.Dim.Render("No checkpoints in this session: its prompts were sent with checkpoints off, or before they existed.")), 1
	}
	layout := clockLayout(d.items, d.now)
	for i, cp := range d.items {
		line := fmt.Sprintf("%3d  %s  %-10s  %s", cp.N, cp.At.In(d.now.Location()).Format(layout), changedMark(cp), oneLine(cp.Prompt))
		lines = append(lines, d.menuLine(line, i == d.cursor))
	}
	return lines, d.cursor + 1
}

// clockLayout is how the list writes the prompts' times: the time of day
// when all were sent today, else with the date.
func clockLayout(items []sessions.Checkpoint, now time.Time) string {
	y, m, day := now.Date()
	for _, cp := range items {
		if cy, cm, cd := cp.At.In(now.Location()).Date(); cy != y || cm != m || cd != day {
			return "Jan _2 15:04"
		}
	}
	return "15:04"
}

// changedMark marks a prompt whose turn changed files, with how many.
func changedMark(cp sessions.Checkpoint) string {
	if len(cp.Changed) == 0 {
		return ""
	}
	return "✎ " + files(len(cp.Changed))
}

// files is "1 file", "3 files".
func files(n int) string { return strconv.Itoa(n) + plural(n, " file", " files") }

// promptTitle names the chosen prompt in a header.
func (d *rewindDialog) promptTitle(cp sessions.Checkpoint) string {
	return fmt.Sprintf("prompt %d · %s", cp.N, cp.At.In(d.now.Location()).Format(clockLayout(d.items, d.now)))
}

// scopeLines is the menu of what to restore of the chosen prompt.
func (d *rewindDialog) scopeLines() ([]string, int) {
	cp, _ := d.chosen()
	lines := []string{
		d.header("Rewind to before "+d.promptTitle(cp), "  ↑/↓ choose · enter select · esc back"),
		"❯ " + oneLine(cp.Prompt),
	}
	if n := len(cp.Changed); n > 0 {
		lines = append(lines, d.st.Dim.Render(fmt.Sprintf("  its turn changed %s: %s", files(n), strings.Join(cp.Changed, ", "))))
	}
	lines = append(lines, "")
	focus := len(lines) + d.choice
	for i, o := range scopeOptions {
		text := o.label
		if o.desc != "" {
			text = fmt.Sprintf("%-30s %s", o.label, d.st.Dim.Render(o.desc))
		}
		lines = append(lines, d.menuLine(text, i == d.choice))
	}
	return lines, focus
}

// previewLines is what restoring the files does: the files that change,
// with the lines added and removed, those changed outside the agent since
// the checkpoint (left alone unless the person says otherwise), those
// never written; then the choices.
func (d *rewindDialog) previewLines() ([]string, int) {
	cp, _ := d.chosen()
	title := "Restore the files to before "
	if d.scope == RewindBoth {
		title = "Restore the files and the conversation to before "
	}
	lines := []string{d.header(title+d.promptTitle(cp), "  ↑/↓ choose · enter select · esc back")}
	p := d.plan
	if len(p.Changes) == 0 && len(p.Kept) == 0 {
		lines = append(lines, fmt.Sprintf("The files are as they were before prompt %d: nothing to restore.", cp.N))
	}
	w := pathWidth(p.Changes, p.Kept, p.Protected)
	if len(p.Changes) > 0 {
		lines = append(lines, "Restoring changes "+files(len(p.Changes))+":")
		for _, c := range p.Changes {
			lines = append(lines, d.changeLine(c, w))
		}
	}
	if len(p.Kept) > 0 {
		lines = append(lines, fmt.Sprintf("Changed outside the agent since prompt %d:", cp.N))
		for _, c := range p.Kept {
			lines = append(lines, d.changeLine(c, w))
		}
	}
	if len(p.Protected) > 0 {
		lines = append(lines, "Protected, never written:")
		for _, c := range p.Protected {
			lines = append(lines, "  "+c.Path)
		}
	}
	lines = append(lines, "")
	focus := len(lines) + d.choice
	for i, o := range d.options() {
		lines = append(lines, d.menuLine(o.label, i == d.choice))
	}
	return lines, focus
}

// pathWidth is the width of the longest path of the lists, at most 40.
func pathWidth(lists ...[]FileChange) int {
	w := 0
	for _, l := range lists {
		for _, c := range l {
			w = max(w, textWidth(c.Path))
		}
	}
	return min(w, 40)
}

// changeLine is one file of the preview: its path, then the lines the
// restore adds and removes, a file it creates or deletes marked.
func (d *rewindDialog) changeLine(c FileChange, w int) string {
	path := oneLine(c.Path)
	pad := strings.Repeat(" ", max(w-textWidth(path), 0))
	return "  " + path + pad + "  " + d.changeStats(c)
}

// changeStats is "+3 −1", "created +3", "deleted −2" or "binary".
func (d *rewindDialog) changeStats(c FileChange) string {
	var parts []string
	switch c.Action {
	case "create":
		parts = append(parts, "created")
	case "delete":
		parts = append(parts, "deleted")
	}
	switch {
	case c.Binary:
		parts = append(parts, "binary")
	case c.Action == "create":
		parts = append(parts, d.st.DiffAdd.Render(fmt.Sprintf("+%d", c.Added)))
	case c.Action == "delete":
		parts = append(parts, d.st.DiffDel.Render(fmt.Sprintf("−%d", c.Removed)))
	default:
		parts = append(parts, d.st.DiffAdd.Render(fmt.Sprintf("+%d", c.Added)), d.st.DiffDel.Render(fmt.Sprintf("−%d", c.Removed)))
	}
	return strings.Join(parts, " ")
}
