package tui

import (
	"strings"
	"testing"
)

// vimKeys splits a key script: one key per rune, and <esc>, <cr>, <bs>,
// <c-r>, <left>, <right>, <up>, <down>, <space> for the named keys.
func vimKeys(script string) []string {
	named := map[string]string{
		"esc": "esc", "cr": "enter", "bs": "backspace", "c-r": "ctrl+r",
		"left": "left", "right": "right", "up": "up", "down": "down", "space": "space",
	}
	var keys []string
	for len(script) > 0 {
		if script[0] == '<' {
			if end := strings.IndexByte(script, '>'); end > 0 {
				keys = append(keys, named[script[1:end]])
				script = script[end+1:]
				continue
			}
		}
		r := []rune(script)[0]
		keys = append(keys, string(r))
		script = script[len(string(r)):]
	}
	return keys
}

// withCursor reads "ab|cd" as the text "abcd" with the cursor on 'c'.
func withCursor(s string) vimText {
	i := strings.Index(s, "|")
	if i < 0 {
		return vimText{text: []rune(s)}
	}
	r := []rune(s[:i])
	return vimText{text: []rune(s[:i] + s[i+1:]), pos: len(r)}
}

// showCursor writes t as withCursor reads it.
func showCursor(t vimText) string {
	return string(t.text[:t.pos]) + "|" + string(t.text[t.pos:])
}

// feed types script into v with the input at t, as the model does: the
// engine's keys in normal mode, Esc to it in insert mode, and the textarea's
// typing (runes, Enter, Backspace) otherwise.
func feed(v *vim, t vimText, script string) vimText {
	for _, k := range vimKeys(script) {
		switch {
		case v.mode == vimNormalMode:
			t = v.key(k, t)
		case k == "esc":
			t = v.escape(t)
		case k == "enter":
			t = vimText{text: t.splice(t.pos, t.pos, []rune{'\n'}), pos: t.pos + 1}
		case k == "backspace":
			if t.pos > 0 {
				t = vimText{text: t.splice(t.pos-1, t.pos, nil), pos: t.pos - 1}
			}
		default:
			r := []rune(k)
			t = vimText{text: t.splice(t.pos, t.pos, r), pos: t.pos + len(r)}
		}
		if t.pos < 0 || t.pos > len(t.text) {
			panic("cursor out of the text after " + k)
		}
	}
	return t
}

// normalVim is an engine in normal mode.
func normalVim() *vim {
	v := newVim(vimText{})
	v.mode = vimNormalMode
	v.inserting = nil
	return v
}

type vimCase struct {
	name, in, keys, want string
}

func runVimCases(t *testing.T, cases []vimCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := normalVim()
			got := showCursor(feed(v, withCursor(c.in), c.keys))
			if got != c.want {
				t.Errorf("%q on %q: got %q, want %q", c.keys, c.in, got, c.want)
			}
		})
	}
}

func TestVimMotions(t *testing.T) {
	runVimCases(t, []vimCase{
		{"h", "ab|c", "h", "a|bc"},
		{"h stops at the line's start", "ab\n|cd", "h", "ab\n|cd"},
		{"3h clamps", "a|bc", "3h", "|abc"},
		{"l", "|abc", "l", "a|bc"},
		{"l stops on the last rune", "ab|c\nd", "l", "ab|c\nd"},
		{"5l clamps", "|abc", "5l", "ab|c"},
		{"left and right", "|abc", "<right><right><left>", "a|bc"},
		{"backspace moves left", "ab|c", "<bs>", "a|bc"},
		{"j keeps the column", "a|bc\ndef", "j", "abc\nd|ef"},
		{"j onto a shorter line", "ab|c\nd", "j", "abc\n|d"},
		{"k", "abc\nde|f", "k", "ab|c\ndef"},
		{"j on the last line", "abc\nd|ef", "j", "abc\nd|ef"},
		{"k on the first line", "a|bc", "k", "a|bc"},
		{"j j keeps the column across a short line", "abc|d\nx\nabcd", "jj", "abcd\nx\nabc|d"},
		{"k j after $ keeps to the lines' ends", "ab\nabc|d\nabcdef", "$kjj", "ab\nabcd\nabcde|f"},
		{"h forgets the column", "abc|d\nx\nabcd", "jhj", "abcd\nx\n|abcd"},
		{"2j", "|a\nb\nc", "2j", "a\nb\n|c"},
		{"9j clamps", "|a\nb\nc", "9j", "a\nb\n|c"},
		{"up and down", "|a\nb\nc", "<down><down><up>", "a\n|b\nc"},
		{"w", "|foo bar", "w", "foo |bar"},
		{"w stops at punctuation", "|foo.bar", "w", "foo|.bar"},
		{"w across lines", "fo|o\n  bar", "w", "foo\n  |bar"},
		{"w stops on an empty line", "fo|o\n\nbar", "w", "foo\n|\nbar"},
		{"w at the end stays on the last rune", "foo b|ar", "w", "foo ba|r"},
		{"3w", "|a b c d", "3w", "a b c |d"},
		{"W skips punctuation", "|foo.bar baz", "W", "foo.bar |baz"},
		{"b", "foo ba|r", "b", "foo |bar"},
		{"b to the previous word", "foo |bar", "b", "|foo bar"},
		{"b across lines", "foo\n|bar", "b", "|foo\nbar"},
		{"b at the start", "|foo", "b", "|foo"},
		{"2b", "a b c |d", "2b", "a |b c d"},
		{"B", "x foo.ba|r", "B", "x |foo.bar"},
		{"e", "|foo bar", "e", "fo|o bar"},
		{"e to the next word", "fo|o bar", "e", "foo ba|r"},
		{"e at the end", "foo ba|r", "e", "foo ba|r"},
		{"2e", "|ab cd ef", "2e", "ab c|d ef"},
		{"E", "|a.b c", "E", "a.|b c"},
		{"0", "ab\ncd|e", "0", "ab\n|cde"},
		{"^", "  ab|c", "^", "  |abc"},
		{"$", "a|bc\nde", "$", "ab|c\nde"},
		{"2$", "a|bc\nde\nf", "2$", "abc\nd|e\nf"},
		{"$ on an empty line", "a\n|\nb", "$", "a\n|\nb"},
		{"gg", "a\n b\nc|d", "gg", "|a\n b\ncd"},
		{"gg to the first non-blank", "  a\nb|c", "gg", "  |a\nbc"},
		{"2gg", "a\n b\nc|d", "2gg", "a\n |b\ncd"},
		{"G", "|a\nb\n c", "G", "a\nb\n |c"},
		{"2G", "|a\nb\nc", "2G", "a\n|b\nc"},
		{"9G clamps", "|a\nb", "9G", "a\n|b"},
		{"wide runes", "|日本 語", "w", "日本 |語"},
		{"l over wide runes", "|日本語", "2l", "日本|語"},
		{"unknown keys are swallowed", "a|b", "zqZ!", "a|b"},
		{"a broken g is dropped", "|ab", "gxl", "a|b"},
	})
}

func TestVimEdits(t *testing.T) {
	runVimCases(t, []vimCase{
		{"x", "a|bc", "x", "a|c"},
		{"x on the last rune", "ab|c", "x", "a|b"},
		{"3x stops at the line's end", "a|bc\nd", "3x", "|a\nd"},
		{"X", "ab|c", "X", "a|c"},
		{"dd", "a\n|b\nc", "dd", "a\n|c"},
		{"dd on the last line", "a\nb\n|c", "dd", "a\n|b"},
		{"dd on the only line", "a|bc", "dd", "|"},
		{"2dd", "|a\nb\nc", "2dd", "|c"},
		{"9dd clamps", "a\n|b\nc", "9dd", "|a"},
		{"d2d", "|a\nb\nc", "d2d", "|c"},
		{"dw", "|foo bar", "dw", "|bar"},
		{"dw on the last word of a line", "a |foo\nbar", "dw", "a| \nbar"},
		{"dw at the end", "foo |bar", "dw", "foo| "},
		{"d3w", "|a b c d", "d3w", "|d"},
		{"3dw", "|a b c d", "3dw", "|d"},
		{"2d2w", "|a b c d e", "2d2w", "|e"},
		{"d2w across lines", "|a b\nc d", "d2w", "|\nc d"},
		{"dw on an empty line takes it", "a\n|\nb", "dw", "a\n|b"},
		{"de", "|foo bar", "de", "| bar"},
		{"db", "foo |bar", "db", "|bar"},
		{"d0", "ab|cd", "d0", "|cd"},
		{"d$", "a|bc\nd", "d$", "|a\nd"},
		{"D", "ab|c", "D", "a|b"},
		{"dj", "|a\nb\nc", "dj", "|c"},
		{"dk", "a\nb\n|c", "dk", "|a"},
		{"dj on the last line does nothing", "a\n|b", "dj", "a\n|b"},
		{"dG", "a\n|b\nc", "dG", "|a"},
		{"dgg", "a\nb\n|c", "dgg", "|"},
		{"dh", "ab|c", "dh", "a|c"},
		{"cw", "|foo bar", "cwbaz<esc>", "ba|z bar"},
		{"cw on the last word", "a |foo", "cwb<esc>", "a |b"},
		{"c2w", "|a b c", "c2wx<esc>", "|x c"},
		{"cc", "a\n  |b c\nd", "ccx<esc>", "a\n|x\nd"},
		{"C", "a|bc", "Cx<esc>", "a|x"},
		{"c$", "a|bc", "c$x<esc>", "a|x"},
		{"yy p", "|a\nb", "yyp", "a\n|a\nb"},
		{"yy P", "a\n|b", "yyP", "a\n|b\nb"},
		{"2yy p", "|a\nb\nc", "2yyjp", "a\nb\n|a\nb\nc"},
		{"yw p", "|foo bar", "ywP", "foo| foo bar"},
		{"y$ p", "a|bc", "y$$p", "abcb|c"},
		{"dd p", "|a\nb", "ddp", "b\n|a"},
		{"x p swaps", "|ab", "xp", "b|a"},
		{"3p", "|a", "yl3p", "aaa|a"},
		{"p on an empty input", "|", "p", "|"},
		{"x on an empty line keeps the register", "|ab\n\nc", "xjxp", "b\n|a\nc"},
		{"cw at an empty line's end inserts", "a\n|", "cwx<esc>", "a\n|x"},
		{"i", "a|c", "ib<esc>", "a|bc"},
		{"a", "|ac", "ab<esc>", "a|bc"},
		{"I", "  a|b", "Ix<esc>", "  |xab"},
		{"A", "a|b\nc", "Ax<esc>", "ab|x\nc"},
		{"o", "a|b\nc", "ox<esc>", "ab\n|x\nc"},
		{"O", "a\n|b", "Ox<esc>", "a\n|x\nb"},
		{"3i", "|b", "3ia<esc>", "aa|ab"},
		{"2o", "|a", "2ox<esc>", "a\nx\n|x"},
		{"Esc steps back", "|", "iabc<esc>", "ab|c"},
		{"Esc at a line's start stays", "a|", "o<esc>", "a\n|"},
		{"multi-line insert", "|", "ia<cr>b<esc>", "a\n|b"},
	})
}

func TestVimUndoAfterEachChange(t *testing.T) {
	start := "foo bar\nbaz qux\nend"
	for _, keys := range []string{
		"x", "3x", "X", "dd", "2dd", "dw", "d2w", "de", "db", "d$", "D", "dj", "dG",
		"cwzz<esc>", "ccz<esc>", "Cz<esc>", "ix<esc>", "ax<esc>", "Ix<esc>", "Ax<esc>", "ox<esc>", "Ox<esc>",
		"yyp", "ywP", "ylp", "2yyP", "c2wz<esc>", "2ccz<esc>", "3ix<esc>",
	} {
		t.Run(keys, func(t *testing.T) {
			v := normalVim()
			in := withCursor("foo b|ar\nbaz qux\nend")
			changed := feed(v, in, "j"+keys)
			if changed.String() == start {
				t.Fatalf("%q changed nothing", keys)
			}
			undone := feed(v, changed, "u")
			if undone.String() != start {
				t.Errorf("u after %q: %q, want %q", keys, undone.String(), start)
			}
			redone := feed(v, undone, "<c-r>")
			if redone.String() != changed.String() {
				t.Errorf("Ctrl+R after %q: %q, want %q", keys, redone.String(), changed.String())
			}
		})
	}
}

func TestVimUndoSteps(t *testing.T) {
	v := normalVim()
	tx := feed(v, withCursor("|a b c"), "xxx")
	if tx.String() != " c" {
		t.Fatalf("xxx: %q", tx.String())
	}
	if got := feed(v, tx, "u").String(); got != "b c" {
		t.Errorf("u: %q, want one x undone", got)
	}
	if got := feed(v, feed(v, tx, "u"), "2u").String(); got != "a b c" {
		t.Errorf("2u: %q", got)
	}
	if got := feed(normalVim(), withCursor("|a"), "uuu<c-r><c-r>").String(); got != "a" {
		t.Errorf("u with nothing to undo: %q", got)
	}
	// A new change after u forgets what Ctrl+R would redo.
	v = normalVim()
	tx = feed(v, withCursor("|abc"), "xuxx<c-r>")
	if got := tx.String(); got != "c" {
		t.Errorf("redo after a new change: %q", got)
	}
}

func TestVimFirstInsertIsOneUndoStep(t *testing.T) {
	v := newVim(vimText{})
	tx := feed(v, vimText{}, "hello<cr>world<esc>")
	if tx.String() != "hello\nworld" || v.mode != vimNormalMode {
		t.Fatalf("typed: %q, mode %v", tx.String(), v.mode)
	}
	if got := feed(v, tx, "u").String(); got != "" {
		t.Errorf("u after the first insert: %q, want empty", got)
	}
}

func TestVimDotRepeats(t *testing.T) {
	runVimCases(t, []vimCase{
		{"x", "|abcd", "x.", "|cd"},
		{"3x with a count", "|abcdefg", "x3.", "|efg"},
		{"dd", "|a\nb\nc", "dd.", "|c"},
		{"dw", "|a b c", "dw.", "|c"},
		{"d2w", "|a b c d e", "d2w.", "|e"},
		{"cw", "|a b", "cwx<esc>w.", "x |x"},
		{"A", "|a\nb", "A!<esc>j.", "a!\nb|!"},
		{"o", "|a", "ox<esc>.", "a\nx\n|x"},
		{"i with a count", "|", "2ia<esc>.", "aa|aa"},
		{"p", "|ab", "ylp.", "aa|ab"},
		{"nothing to repeat", "|a", ".", "|a"},
		{"a motion is no change", "|abc", "xl.", "|b"},
	})
}

func TestVimDotUndoesAsOneStep(t *testing.T) {
	v := normalVim()
	tx := feed(v, withCursor("|a b c"), "cwx<esc>w.")
	if tx.String() != "x x c" {
		t.Fatalf("got %q", tx.String())
	}
	if got := feed(v, tx, "u").String(); got != "x b c" {
		t.Errorf("u after .: %q", got)
	}
}

func TestVimPending(t *testing.T) {
	v := normalVim()
	tx := feed(v, withCursor("|a b"), "2d")
	if v.pending() != "2d" || tx.String() != "a b" {
		t.Fatalf("pending %q, text %q", v.pending(), tx.String())
	}
	tx = feed(v, tx, "<esc>")
	if v.pending() != "" {
		t.Errorf("Esc kept %q pending", v.pending())
	}
	if tx = feed(v, tx, "w"); showCursor(tx) != "a |b" {
		t.Errorf("after the dropped 2d, w: %q", showCursor(tx))
	}
}

// TestVimNeverPanics runs every command at every place of texts that end
// oddly: empty, one empty line, blank lines, trailing newline, wide runes.
func TestVimNeverPanics(t *testing.T) {
	texts := []string{"", "\n", "\n\n", "a", " ", "a\n", "\na", "  \n  ", "日本\n語 x", "a.b_c-d\n\n  e"}
	cmds := []string{
		"h", "l", "j", "k", "w", "b", "e", "W", "B", "E", "0", "^", "$", "gg", "G", "3G",
		"x", "X", "D", "C<esc>", "p", "P", "u", "<c-r>", ".", "i<esc>", "a<esc>", "I<esc>", "A<esc>", "o<esc>", "O<esc>",
		"dd", "dw", "db", "de", "d$", "d0", "dj", "dk", "dgg", "dG", "dh", "dl", "cw<esc>", "cc<esc>", "yy", "yw",
		"9999x", "99dd", "99dw", "5p", "3.",
	}
	for _, text := range texts {
		runes := []rune(text)
		for pos := 0; pos <= len(runes); pos++ {
			for _, c := range cmds {
				v := normalVim()
				feed(v, vimText{text: runes, pos: pos}, "yl"+c)
				feed(v, vimText{text: runes, pos: pos}, "dd"+c+"u"+c)
			}
		}
	}
}

func TestVimParse(t *testing.T) {
	for _, c := range []struct {
		keys  string
		want  vimCmd
		state vimParse
	}{
		{"w", vimCmd{motion: "w"}, vimComplete},
		{"12w", vimCmd{count: 12, motion: "w"}, vimComplete},
		{"0", vimCmd{motion: "0"}, vimComplete},
		{"10j", vimCmd{count: 10, motion: "j"}, vimComplete},
		{"d", vimCmd{op: "d"}, vimIncomplete},
		{"2d3w", vimCmd{count: 6, op: "d", motion: "w"}, vimComplete},
		{"dd", vimCmd{op: "d", motion: "d"}, vimComplete},
		{"dgg", vimCmd{op: "d", motion: "gg"}, vimComplete},
		{"dg", vimCmd{op: "d"}, vimIncomplete},
		{"dx", vimCmd{op: "d"}, vimInvalid},
		{"dy", vimCmd{op: "d"}, vimInvalid},
		{"g", vimCmd{}, vimIncomplete},
		{"z", vimCmd{}, vimInvalid},
		{"99999999x", vimCmd{count: vimMaxCount, action: "x"}, vimComplete},
	} {
		got, state := parseVim(vimKeys(c.keys))
		if state != c.state || (state == vimComplete && got != c.want) {
			t.Errorf("%q: %+v %v, want %+v %v", c.keys, got, state, c.want, c.state)
		}
	}
}
