package background

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agent-dev/agent/tools"
)

// The tools' names; Claude Code calls them BashOutput and KillShell.
const (
	OutputName = "bash_output"
	KillName   = "kill_shell"
)

// Tools returns the session's two tools over m: bash_output and
// kill_shell.
func Tools(m *Manager) []tools.Tool { return []tools.Tool{outputTool{m}, killTool{m}} }

type outputTool struct{ m *Manager }
type killTool struct{ m *Manager }

var (
	_ tools.Tool = outputTool{}
	_ tools.Tool = killTool{}
)

const outputSchema = `{"type":"object","properties":{
"bash_id":{"type":"string","minLength":1,"description":"the background process's id, as bash returned it (bash_1)"},
"filter":{"type":"string","maxLength":1000,"description":"a regular expression (RE2): only the new lines that match it are returned; the others are consumed all the same"}},
"required":["bash_id"],"additionalProperties":false}`

const outputDescription = `Read a background process's new output.

The output written since the last read, and whether the process still runs. A process started with bash's run_in_background keeps running while you work; call this to see what it printed
(a server's log, a watcher's results). Each call returns only the new output, at most the newest %d bytes, with
the process's state: running, or its exit code. Use filter to keep only the lines you need (errors, a URL): it looks
through all the new output the file keeps, not only the newest part.`

const killSchema = `{"type":"object","properties":{
"shell_id":{"type":"string","minLength":1,"description":"the background process's id (bash_1)"}},
"required":["shell_id"],"additionalProperties":false}`

const killDescription = `Stop a background process.

The process and everything it started get SIGTERM, then SIGKILL after a grace period. Stop a server or watcher when you no longer need it; every background process is stopped when the session ends.`

func (t outputTool) Definition() tools.Definition {
	return tools.Definition{Name: OutputName, Description: fmt.Sprintf(outputDescription, t.m.cfg.ReadLimit),
		Schema: json.RawMessage(outputSchema), ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindRead,
		Summarize: t.m.summarize("bash_id")}
}

// Definition: stopping one of the session's own processes changes nothing
// the session did not start, so it needs no approval (like todo_write).
func (t killTool) Definition() tools.Definition {
	return tools.Definition{Name: KillName, Description: killDescription, Schema: json.RawMessage(killSchema),
		ReadOnly: true, Effects: tools.ReadsWorkspace, Kind: tools.KindOther, Summarize: t.m.summarize("shell_id")}
}

// summarize reads a call as its process's id and command.
func (m *Manager) summarize(key string) func(string) tools.Summary {
	return func(raw string) tools.Summary {
		var a map[string]any
		if json.Unmarshal([]byte(raw), &a) != nil {
			return tools.DefaultSummary(raw)
		}
		id, _ := a[key].(string)
		if id == "" {
			return tools.DefaultSummary(raw)
		}
		title := id
		if p := m.find(id); p != nil {
			title += ": " + tools.OneLine(shortCommand(p.command))
		}
		return tools.Summary{Title: title, Full: tools.PrettyJSON(raw)}
	}
}

// unknown is the error result for an id the session does not know.
func (m *Manager) unknown(tool, id string) tools.Result {
	var ids []string
	for _, s := range m.List() {
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return tools.Errorf("%s: there is no background process %q: none was started in this session (bash with run_in_background starts one)", tool, id)
	}
	return tools.Errorf("%s: there is no background process %q; the session's are %s", tool, id, strings.Join(ids, ", "))
}

// Run returns the new output of the process and its state. Meta holds
// running, exit_code (when it ended), output_bytes (all it wrote) and
// dropped/skipped/lost (bytes the cap or the read's limit left out, or a
// failing output file lost).
func (t outputTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a struct {
		ID     string `json:"bash_id"`
		Filter string `json:"filter"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("bash_output: arguments: %v", err), nil
	}
	var re *regexp.Regexp
	if len(a.Filter) > maxFilter { // matching costs the pattern's size times the output's
		return tools.Errorf("bash_output: filter: %d bytes, more than the %d a filter may have", len(a.Filter), maxFilter), nil
	}
	if a.Filter != "" {
		var err error
		if re, err = regexp.Compile(a.Filter); err != nil {
			return tools.Errorf("bash_output: filter: %v", err), nil
		}
	}
	m := t.m
	p := m.find(a.ID)
	if p == nil {
		return m.unknown(OutputName, a.ID), nil
	}
	// The state is taken before the output: a process seen ended has
	// written everything, so nothing it wrote is missed.
	m.mu.Lock()
	st := p.status()
	from := p.read
	m.mu.Unlock()
	// A filter looks through all the new output the file holds; the lines
	// it keeps are then bounded as a read is.
	limit := m.cfg.ReadLimit
	if re != nil {
		limit = int(max(m.cfg.MaxOutputBytes, int64(limit)))
	}
	c, err := p.log.ReadFrom(from, limit)
	if err != nil {
		return tools.Errorf("bash_output: %v", err), nil
	}
	// A running process may have written part of a character: its last
	// bytes wait for the next read, which then has it whole.
	held := 0
	if st.Running {
		held = incompleteTail(c.data)
		c.data = c.data[:len(c.data)-held]
	}
	data := c.data
	if c.dropped+c.skipped > 0 { // the first line is cut: start at the next whole one, when near
		if i := bytes.IndexByte(data, '\n'); i >= 0 && i < 512 {
			data = data[i+1:]
		}
		for len(data) > 0 && !utf8.RuneStart(data[0]) { // else at least between characters
			data = data[1:]
		}
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	var skippedMatches int
	if re != nil {
		if text, err = matching(ctx, text, re); err != nil {
			return tools.Errorf("bash_output: cancelled while filtering; the output stays unread"), nil
		}
		if cut := len(text) - m.cfg.ReadLimit; cut > 0 { // the newest matching lines
			if i := strings.IndexByte(text[cut:], '\n'); text[cut-1] != '\n' && i >= 0 && i < len(text)-cut-1 {
				cut += i + 1
			}
			for cut < len(text) && !utf8.RuneStart(text[cut]) { // a line longer than the limit: cut between characters
				cut++
			}
			skippedMatches, text = cut, text[cut:]
		}
	}

	m.mu.Lock()
	p.read = max(p.read, c.next-int64(held))
	if !st.Running {
		p.noted = true // the model sees the end here
	}
	m.mu.Unlock()

	var b strings.Builder
	if st.Running {
		fmt.Fprintf(&b, "%s is running (pid %d).\n", st.ID, st.PID)
	} else {
		fmt.Fprintf(&b, "%s %s.\n", st.ID, ending(st))
	}
	if c.dropped > 0 {
		fmt.Fprintf(&b, "[%s of output before this was dropped: the output file keeps the newest %s]\n", size(c.dropped), size(m.cfg.MaxOutputBytes))
	}
	if c.lost > 0 {
		fmt.Fprintf(&b, "[%s of output lost: writing the output file failed: %v]\n", size(c.lost), c.lostBy)
	}
	if c.skipped > 0 {
		fmt.Fprintf(&b, "[%s of new output skipped: showing the newest %s]\n", size(c.skipped), size(int64(m.cfg.ReadLimit)))
	}
	if skippedMatches > 0 {
		fmt.Fprintf(&b, "[%s of matching lines skipped: showing the newest %s]\n", size(int64(skippedMatches)), size(int64(len(text))))
	}
	switch {
	case text != "":
		b.WriteString(text)
	case re != nil && len(data) > 0:
		b.WriteString("(no new line matches the filter)")
	default:
		b.WriteString("(no new output)")
	}
	meta := map[string]any{"running": st.Running, "output_bytes": st.OutputBytes, "dropped": c.dropped, "skipped": c.skipped, "lost": c.lost}
	if !st.Running {
		meta[tools.MetaExitCode] = st.ExitCode
	}
	return tools.Result{Content: b.String(), Meta: meta}, nil
}

// incompleteTail is how many bytes at the end of b start a UTF-8
// character that is not complete (0 to 3).
func incompleteTail(b []byte) int {
	for k := 1; k <= min(utf8.UTFMax-1, len(b)); k++ {
		if c := b[len(b)-k]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// maxFilter bounds a filter's length, in bytes.
const maxFilter = 1000

// matching keeps the lines of text that re matches; it stops with ctx's
// error once ctx is cancelled.
func matching(ctx context.Context, text string, re *regexp.Regexp) (string, error) {
	var b strings.Builder
	n := 0
	for line := range strings.Lines(text) {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		if re.MatchString(strings.TrimRight(line, "\n")) {
			b.WriteString(line)
		}
	}
	return b.String(), nil
}

// Run stops the process and returns how it ended.
func (t killTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var a struct {
		ID string `json:"shell_id"`
	}
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tools.Errorf("kill_shell: arguments: %v", err), nil
	}
	m := t.m
	p := m.find(a.ID)
	if p == nil {
		return m.unknown(KillName, a.ID), nil
	}
	m.mu.Lock()
	was := p.status()
	p.noted = true // this call's result tells the end: no note about it, even to a call beside this one
	m.mu.Unlock()
	st, ok := m.Stop(ctx, a.ID)
	if !ok { // it had ended, and a start meanwhile forgot it
		st = was
	}
	text := fmt.Sprintf("%s was stopped.", st.ID)
	switch {
	case !was.Running:
		text = fmt.Sprintf("%s had already ended: it %s.", st.ID, ending(was))
	case !st.Stopped: // it ended by itself as it was being stopped
		text = fmt.Sprintf("%s ended before it was stopped: it %s.", st.ID, ending(st))
	}
	if st.Unread > 0 {
		text += fmt.Sprintf(" %s of its output is unread (bash_output %s).", size(st.Unread), st.ID)
	}
	return tools.Result{Content: text, Meta: map[string]any{tools.MetaExitCode: st.ExitCode, "was_running": was.Running}}, nil
}
