package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// wrapTextItem stands in for a message (the markdown renderer is built
// elsewhere): plain text wrapped to the width, cached per width. It counts
// its Render calls in *renders when renders is set.
type wrapTextItem struct {
	text    string
	renders *int

	width int
	cache string
}

func (x *wrapTextItem) Render(width int) string {
	if x.renders != nil {
		*x.renders++
	}
	if x.cache == "" || x.width != width {
		x.cache, x.width = strings.Join(wrapText(x.text, width), "\n"), width
	}
	return x.cache
}

func lineItem(format string, a ...any) *wrapTextItem {
	return &wrapTextItem{text: fmt.Sprintf(format, a...)}
}

// wholeList renders every item the way chatList joins them, for reference.
func wholeList(c *chatList, width int) []string {
	var parts []string
	for _, it := range c.items {
		if s := it.Render(width); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Split(strings.Join(parts, "\n\n"), "\n")
}

func viewLines(c *chatList, width, height int) []string {
	return strings.Split(c.View(width, height), "\n")
}

func mixedConversation(st *styles) *chatList {
	c := newChatList()
	c.append(lineItem("> Why does the approval test fail on CI but not on my machine?"))
	c.append(newNoteItem(st, "picked grep, read_file"))
	g := callBlock(st, "1", "grep", `{"pattern":"func TestApproval","path":"tui"}`)
	g.finish("tui/approval_test.go:14:func TestApprovalAllowOnce(t *testing.T) {\ntui/approval_test.go:48:func TestApprovalDeny(t *testing.T) {", false, 18*time.Millisecond, nil)
	c.append(g)
	r := callBlock(st, "2", "read_file", `{"path":"tui/approval_test.go"}`)
	r.finish(numbered(60, "%d\t// test line"), false, 3*time.Millisecond, nil)
	c.append(r)
	c.append(lineItem("The test waits for the approval with a fixed sleep of 10 ms. On a loaded CI machine the tool call has not started by then, so the key press arrives before the question and is dropped.\n\nWait for the question to appear instead of sleeping:\n\n    waitFor(t, func() bool { return m.waiting() })"))
	b := callBlock(st, "3", "bash", `{"command":"go test -race -count=20 ./tui/ -run TestApproval"}`)
	b.setWaiting(true)
	b.setMenu(approvalView{armed: true})
	c.append(b)
	c.append(newErrorItem(st, "provider unreachable: Post \"http://127.0.0.1:11434/v1/chat/completions\": dial tcp 127.0.0.1:11434: connect: connection refused"))
	c.append(newNoteItem(st, "cancelled"))
	return c
}

func TestChatListGolden(t *testing.T) {
	tests := []struct {
		name          string
		width, height int
		scroll        func(c *chatList)
	}{
		{"follow_60x20", 60, 20, nil},
		{"follow_100x12", 100, 12, nil},
		{"top_60x20", 60, 20, (*chatList).top},
		{"top_100x12", 100, 12, (*chatList).top},
		{"short_100x40", 100, 40, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mixedConversation(goldenStyles())
			if tt.name == "short_100x40" {
				c = newChatList()
				c.append(lineItem("> hello"))
				c.append(lineItem("Hello! What shall we work on?"))
			}
			c.View(tt.width, tt.height)
			if tt.scroll != nil {
				tt.scroll(c)
			}
			out := c.View(tt.width, tt.height)
			requireView(t, out, tt.width, tt.height)
			requireGolden(t, "chatlist_"+tt.name, out)
		})
	}
}

// requireView fails unless out is exactly height lines of at most width
// cells.
func requireView(t *testing.T, out string, width, height int) {
	t.Helper()
	if n := strings.Count(out, "\n") + 1; n != height {
		t.Fatalf("view has %d lines, want %d:\n%s", n, height, out)
	}
	requireFits(t, out, width)
}

func TestChatListViewSize(t *testing.T) {
	long := lineItem("%s", strings.Repeat("漢字とカナ wide characters ", 30))
	for _, dark := range []bool{true, false} {
		c := mixedConversation(newStyles(dark))
		c.append(long)
		for _, h := range []int{1, 2, 7, 30, 200} {
			for w := 1; w <= 130; w += 3 {
				c.bottom()
				requireView(t, c.View(w, h), w, h)
				c.pageUp()
				requireView(t, c.View(w, h), w, h)
				c.top()
				requireView(t, c.View(w, h), w, h)
			}
		}
	}
	if got := newChatList().View(10, 3); got != "\n\n" {
		t.Fatalf("empty list view %q, want three empty lines", got)
	}
}

func TestChatListFollowsOnAppend(t *testing.T) {
	c := newChatList()
	for i := range 10 {
		c.append(lineItem("item %d", i))
	}
	lines := viewLines(c, 20, 5)
	if lines[4] != "item 9" || !c.following() {
		t.Fatalf("following view ends with %q, following=%v", lines[4], c.following())
	}
	c.append(lineItem("item 10\nsecond line"))
	lines = viewLines(c, 20, 5)
	if lines[3] != "item 10" || lines[4] != "second line" {
		t.Fatalf("after append the view is %q", lines)
	}
}

func TestChatListScrollUpUnpins(t *testing.T) {
	c := newChatList()
	for i := range 10 {
		c.append(lineItem("item %d", i))
	}
	c.View(20, 5)
	c.scrollUp(3) // the mouse wheel
	if c.following() {
		t.Fatal("still following after scrolling up")
	}
	before := c.View(20, 5)
	for i := 10; i < 20; i++ {
		c.append(lineItem("item %d", i))
	}
	if after := c.View(20, 5); after != before {
		t.Fatalf("appending moved a scrolled view:\n%s\nwas:\n%s", after, before)
	}
	for range 100 {
		c.pageDown()
		if c.following() {
			break
		}
	}
	if !c.following() {
		t.Fatal("pageDown to the end did not pin the list again")
	}
	c.append(lineItem("item 20"))
	if lines := viewLines(c, 20, 5); lines[4] != "item 20" {
		t.Fatalf("re-pinned list does not follow: %q", lines)
	}
}

func TestChatListShortListStaysPinned(t *testing.T) {
	c := newChatList()
	c.append(lineItem("one"))
	c.append(lineItem("two"))
	c.View(20, 10)
	c.scrollUp(3)
	c.pageUp()
	c.top()
	if !c.following() {
		t.Fatal("a list that fits the pane stopped following")
	}
	if got := viewLines(c, 20, 10); got[0] != "one" || got[2] != "two" || got[3] != "" {
		t.Fatalf("short list view %q", got)
	}
}

// TestChatListScrollMatchesWholeList scrolls line by line through items of
// varied heights, down from the top and up from the bottom, and compares
// every view with the same window of the whole list rendered at once.
func TestChatListScrollMatchesWholeList(t *testing.T) {
	c := newChatList()
	for i := range 40 {
		c.append(lineItem("%d %s", i, strings.Repeat("word ", i%9*4)))
		if i%7 == 3 {
			c.append(lineItem("")) // renders nothing: takes no lines
		}
	}
	const w, h = 30, 8
	whole := wholeList(c, w)
	c.View(w, h)
	c.top()
	for pos := 0; pos+h <= len(whole); pos++ {
		got := viewLines(c, w, h)
		if want := whole[pos : pos+h]; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("down at line %d:\n%s\nwant:\n%s", pos, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c.following() != (pos+h == len(whole)) {
			t.Fatalf("at line %d of %d following=%v", pos, len(whole), c.following())
		}
		c.scrollDown(1)
	}
	c.bottom()
	for pos := len(whole) - h; pos >= 0; pos-- {
		got := viewLines(c, w, h)
		if want := whole[pos : pos+h]; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("up at line %d:\n%s\nwant:\n%s", pos, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		c.scrollUp(1)
	}
}

// TestChatListRendersOnlyWhatIsVisible counts Render calls on a 5,000-item
// list: a View, a scroll or a page asks a bounded number of items, not all.
func TestChatListRendersOnlyWhatIsVisible(t *testing.T) {
	renders := 0
	c := newChatList()
	for i := range 5000 {
		c.append(&wrapTextItem{text: fmt.Sprintf("message %d: %s", i, strings.Repeat("lorem ipsum ", 10)), renders: &renders})
	}
	const w, h = 80, 40
	// Each item is 2 lines at 80 columns plus a separator: a pane of 40
	// lines shows about 14 of them. A View renders those; a scroll first
	// measures the items it passes and those below the new top (does the
	// view reach the end?): a page down touches about three panes' worth.
	// Nowhere near 5,000.
	const bound = 4 * (h/3 + 1)
	steps := []struct {
		name string
		do   func()
	}{
		{"view following", func() {}},
		{"scroll up 3", func() { c.scrollUp(3) }},
		{"page up", c.pageUp},
		{"scroll to the middle", func() { c.scrollTo(2500) }},
		{"page down", c.pageDown},
		{"scroll down 3", func() { c.scrollDown(3) }},
		{"top", c.top},
		{"bottom", c.bottom},
		{"resize", func() { c.View(50, 20) }},
	}
	for _, s := range steps {
		renders = 0
		s.do()
		c.View(w, h)
		t.Logf("%s: %d Render calls", s.name, renders)
		if renders > bound {
			t.Errorf("%s: %d Render calls, want at most %d", s.name, renders, bound)
		}
	}
}

func TestChatListResizeKeepsAnchor(t *testing.T) {
	c := newChatList()
	for i := range 300 {
		c.append(lineItem("message %d %s", i, strings.Repeat("text ", 12)))
	}
	c.View(80, 20)
	c.scrollTo(150)
	for _, w := range []int{80, 30, 120, 12} {
		lines := viewLines(c, w, 20)
		if first, _ := c.visible(); first != 150 || !strings.HasPrefix(lines[0], "message 150") {
			t.Fatalf("at width %d the view starts at item %d: %q", w, first, lines[0])
		}
	}
	c.clear()
	if c.len() != 0 || !c.following() {
		t.Fatalf("clear left %d items, following=%v", c.len(), c.following())
	}
	requireView(t, c.View(30, 4), 30, 4)
}

// reveal brings a tool block into view: one above the pane comes to its
// top, one expanded past the pane's height shows from its header, and one
// already in full view does not move the pane.
func TestChatListRevealsABlock(t *testing.T) {
	st := goldenStyles()
	c := newChatList()
	for i := range 30 {
		c.append(lineItem("before %d", i))
	}
	b := callBlock(st, "b", "bash", `{"command":"seq 60"}`)
	b.finish(numbered(60, "%d"), false, time.Millisecond, nil)
	c.append(b)
	for i := range 10 {
		c.append(lineItem("after %d", i))
	}
	viewLines(c, 80, 12)
	c.reveal(b)
	lines := viewLines(c, 80, 12)
	if !strings.Contains(lines[0], "bash seq 60") {
		t.Fatalf("a block above the pane was not brought to its top:\n%s", strings.Join(lines, "\n"))
	}
	c.reveal(b) // in full view: stays
	if again := viewLines(c, 80, 12); strings.Join(again, "\n") != strings.Join(lines, "\n") {
		t.Errorf("revealing a block in full view moved the pane")
	}
	c.bottom()
	viewLines(c, 80, 12)
	b.setExpanded(true) // 62 lines: taller than the pane
	c.reveal(b)
	lines = viewLines(c, 80, 12)
	if !strings.Contains(lines[0], "bash seq 60") || !strings.Contains(lines[1], "1") {
		t.Errorf("an expanded block taller than the pane does not show from its header:\n%s", strings.Join(lines, "\n"))
	}
}

// A block below the pane's end moves up until its last line is the pane's
// last.
func TestChatListRevealScrollsDownToABlockEnd(t *testing.T) {
	st := goldenStyles()
	c := newChatList()
	for i := range 30 {
		c.append(lineItem("before %d", i))
	}
	b := callBlock(st, "b", "bash", `{"command":"seq 3"}`)
	b.finish("1\n2\n3", false, time.Millisecond, nil)
	c.append(b)
	for i := range 10 {
		c.append(lineItem("after %d", i))
	}
	viewLines(c, 80, 12)
	c.top()
	c.reveal(b)
	lines := viewLines(c, 80, 12)
	if last := lines[len(lines)-1]; !strings.Contains(last, "3") || strings.Contains(last, "before") {
		t.Errorf("the block's last line is not the pane's last:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(strings.Join(lines, "\n"), "bash seq 3") {
		t.Errorf("the block's header is not in view:\n%s", strings.Join(lines, "\n"))
	}
}
