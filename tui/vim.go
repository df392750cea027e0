package tui

import "strings"

// vim is the input's vim keys: a state machine over the input's text and
// cursor (vimText) that the model drives (model_vim.go). In insert mode the
// textarea edits as always and the engine only hears of it at Esc; in
// normal mode every key is the engine's. It keeps the pending keys of an
// unfinished command ("2d"), the unnamed register, the undo and redo
// snapshots and the last change, for ".".
//
// Normal mode's commands (vim's meanings; a count before a command, and
// before the motion of an operator, multiplies):
//
//	motions   h l j k  w b e  W B E  0 ^ $  gg G   (←/→/backspace as h/l)
//	operators d c y, with a motion or doubled (dd cc yy: whole lines)
//	edits     x X D C  p P  u Ctrl+R  .  i a I A o O
type vim struct {
	mode vimMode
	keys []string // the keys of the command being typed
	reg  vimRegister
	// undo and redo are snapshots of the text before each change, newest
	// last (at most vimUndoDepth).
	undo, redo []vimText
	// last is the last change, for "."; inserting the change that entered
	// insert mode, until Esc completes it.
	last      *vimChange
	inserting *vimInsert
	// want is the column j and k keep to across shorter lines (vim's
	// curswant), set by the first of them; -1 when the last command was
	// no j or k.
	want int
}

// vimMode is the engine's mode.
type vimMode int

const (
	vimInsertMode vimMode = iota
	vimNormalMode
)

// vimUndoDepth bounds the undo snapshots.
const vimUndoDepth = 200

// vimMaxCount bounds a count (a command repeated 10,000 times on a short
// input is instant; a typo of many zeros must not hang the interface).
const vimMaxCount = 10000

// vimRegister is the unnamed register: what d, c, y, x put and p puts
// back; lines when it holds whole lines (without their last '\n').
type vimRegister struct {
	text  []rune
	lines bool
}

// vimCmd is one parsed normal-mode command.
type vimCmd struct {
	count  int    // 0 when none was typed
	op     string // "d", "c", "y" or ""
	motion string // a motion, or the operator again for whole lines
	action string // an edit that takes no motion (x, p, i, u, ...)
}

// vimChange is a change "." repeats: the command, and the text typed in
// insert mode after it.
type vimChange struct {
	cmd  vimCmd
	text []rune
}

// vimInsert is the change that entered insert mode: the text before it
// (for undo) and just after it (where typing began).
type vimInsert struct {
	cmd           vimCmd
	before, start vimText
}

// newVim is an engine in insert mode with t, the input's text, as the
// start of the first insert.
func newVim(t vimText) *vim {
	v := &vim{want: -1}
	v.startInsert(t)
	return v
}

// startInsert puts the engine in insert mode as after "i" on t: what the
// person types from now on is one change (a sent prompt, a fresh input).
func (v *vim) startInsert(t vimText) {
	v.mode = vimInsertMode
	v.keys = nil
	v.inserting = &vimInsert{cmd: vimCmd{action: "i"}, before: t, start: t}
}

// forget drops the undo history (the input was sent or replaced).
func (v *vim) forget() { v.undo, v.redo = nil, nil }

// pending is the keys of the command being typed ("2d"), for the status
// line.
func (v *vim) pending() string { return strings.Join(v.keys, "") }

// escape leaves insert mode with the input at t: what was typed since the
// change that entered it becomes one undo step and "."'s text, a count
// given to an insert (3i, 2o) repeats the text, and the cursor steps back onto
// the last rune typed. In normal mode it drops the pending keys.
func (v *vim) escape(t vimText) vimText {
	if v.mode != vimInsertMode {
		v.keys = nil
		return t
	}
	v.mode = vimNormalMode
	ins := v.inserting
	v.inserting = nil
	if ins == nil {
		return t.normal()
	}
	typed := inserted(ins.start, t)
	if n := ins.cmd.count; n > 1 && len(typed) > 0 && ins.cmd.op == "" {
		rep := typed
		if ins.cmd.action == "o" || ins.cmd.action == "O" {
			rep = append([]rune{'\n'}, typed...)
		}
		for range min(n, vimMaxCount) - 1 {
			t = vimText{text: t.splice(t.pos, t.pos, rep), pos: t.pos + len(rep)}
		}
	}
	v.record(ins.before, t, vimChange{cmd: ins.cmd, text: typed})
	if t.pos > t.lineStart(t.pos) {
		t.pos--
	}
	return t.normal()
}

// inserted is the text typed from start to end: the runes before the cursor
// since start's cursor when the rest is as it was, else what differs
// between the two texts (the person moved or deleted past the start).
func inserted(start, end vimText) []rune {
	if end.pos >= start.pos && len(end.text)-end.pos == len(start.text)-start.pos &&
		string(end.text[:start.pos]) == string(start.text[:start.pos]) &&
		string(end.text[end.pos:]) == string(start.text[start.pos:]) {
		return append([]rune(nil), end.text[start.pos:end.pos]...)
	}
	p := 0
	for p < len(start.text) && p < len(end.text) && start.text[p] == end.text[p] {
		p++
	}
	s := 0
	for s < len(start.text)-p && s < len(end.text)-p &&
		start.text[len(start.text)-1-s] == end.text[len(end.text)-1-s] {
		s++
	}
	return append([]rune(nil), end.text[p:len(end.text)-s]...)
}

// record keeps a change from before to after: an undo step when the text
// changed, and "."'s command.
func (v *vim) record(before, after vimText, c vimChange) {
	if !before.equal(after) {
		v.undo = append(v.undo, before)
		if len(v.undo) > vimUndoDepth {
			v.undo = v.undo[1:]
		}
		v.redo = nil
	}
	v.last = &c
}

// key handles one key of normal mode (Key.String's spelling: "w", "G",
// "$", "ctrl+r") with the input at t and returns the input after it. A key
// that completes no command waits in pending; one that cannot continue the
// command drops it. Keys that mean nothing are swallowed: in normal mode
// typed letters never reach the text.
func (v *vim) key(k string, t vimText) vimText {
	if v.mode != vimNormalMode {
		return t
	}
	switch k {
	case "left", "backspace":
		k = "h"
	case "right", "space":
		k = "l"
	case "up":
		k = "k"
	case "down":
		k = "j"
	}
	v.keys = append(v.keys, k)
	c, state := parseVim(v.keys)
	switch state {
	case vimIncomplete:
		return t
	case vimInvalid:
		v.keys = nil
		return t
	}
	v.keys = nil
	return v.run(c, t)
}

type vimParse int

const (
	vimComplete vimParse = iota
	vimIncomplete
	vimInvalid
)

// vimActions are the commands that take no motion; vimMotions the
// motions (gg is read from two keys).
var (
	vimActions = map[string]bool{
		"x": true, "X": true, "D": true, "C": true, "p": true, "P": true, "u": true, "ctrl+r": true, ".": true,
		"i": true, "a": true, "I": true, "A": true, "o": true, "O": true,
	}
	vimMotions = map[string]bool{
		"h": true, "l": true, "j": true, "k": true, "w": true, "b": true, "e": true, "W": true, "B": true, "E": true,
		"0": true, "^": true, "$": true, "gg": true, "G": true,
	}
)

// parseVim reads keys as [count] action, [count] motion or
// [count] operator [count] (motion | operator).
func parseVim(keys []string) (vimCmd, vimParse) {
	var c vimCmd
	i := 0
	count := func() int {
		n := 0
		for i < len(keys) && len(keys[i]) == 1 && keys[i][0] >= '0' && keys[i][0] <= '9' && (n > 0 || keys[i] != "0") {
			n = min(n*10+int(keys[i][0]-'0'), vimMaxCount)
			i++
		}
		return n
	}
	// motion reads a motion at i, "gg" from two keys.
	motion := func() (string, vimParse) {
		if i == len(keys) {
			return "", vimIncomplete
		}
		k := keys[i]
		i++
		if k == "g" {
			if i == len(keys) {
				return "", vimIncomplete
			}
			if keys[i] != "g" {
				return "", vimInvalid
			}
			i++
			k = "gg"
		}
		if !vimMotions[k] {
			return "", vimInvalid
		}
		return k, vimComplete
	}
	c.count = count()
	if i == len(keys) {
		return c, vimIncomplete
	}
	switch k := keys[i]; {
	case vimActions[k]:
		c.action = k
		i++
	case k == "d" || k == "c" || k == "y":
		c.op = k
		i++
		n := count()
		if n > 0 {
			c.count = min(max(c.count, 1)*n, vimMaxCount)
		}
		if i < len(keys) && keys[i] == k {
			c.motion = k
			i++
			break
		}
		m, state := motion()
		if state != vimComplete {
			return c, state
		}
		c.motion = m
	default:
		m, state := motion()
		if state != vimComplete {
			return c, state
		}
		c.motion = m
	}
	if i != len(keys) {
		return c, vimInvalid
	}
	return c, vimComplete
}
