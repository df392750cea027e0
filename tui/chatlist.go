package tui

import "strings"

// chatList is the conversation pane: a list of items shown in a window of
// width x height cells, one blank line between items, scrolled by lines.
//
// It is virtual: a View renders only the items that are visible, however
// long the conversation. The scroll position is an anchor, not a line
// number: either following (pinned to the bottom: the last line of the last
// item is the last line of the pane, and new output keeps it there), or the
// index of the item at the top of the pane and the line of it shown first.
// View and every scroll walk outward from the anchor, asking each item it
// passes for its rendering (items cache their renders per width), until the
// pane is filled or the scroll distance covered; nothing ever measures the
// whole list. Items above the anchor that change height (a block folded,
// a reflow) therefore do not move the view, and a resize re-flows lazily.
//
// Scrolling measures items at the size of the last View; before the first
// View it does nothing.
type chatList struct {
	items []item

	follow    bool // pinned to the bottom
	anchor    int  // when not following: the item at the top of the pane
	anchorOff int  // the first line of that item's block that is shown

	width, height int // size of the last View
	first, last   int // items visible in the last View
}

// newChatList returns an empty list that follows the bottom.
func newChatList() *chatList { return &chatList{follow: true} }

// append adds it at the bottom. A following list shows it; a scrolled one
// stays where it is.
func (c *chatList) append(it item) { c.items = append(c.items, it) }

// remove takes it out of the list; a following list still follows, and a
// scrolled one keeps the items it showed where they were (an item above the
// anchor moves the anchor up by one).
func (c *chatList) remove(it item) {
	for i, x := range c.items {
		if x != it {
			continue
		}
		c.items = append(c.items[:i], c.items[i+1:]...)
		switch {
		case i < c.anchor:
			c.anchor--
		case i == c.anchor:
			c.anchorOff = 0
		}
		c.clampAnchor()
		return
	}
}

// len is the number of items.
func (c *chatList) len() int { return len(c.items) }

// at returns item i, 0 <= i < len().
func (c *chatList) at(i int) item { return c.items[i] }

// clear removes every item and follows the bottom again.
func (c *chatList) clear() {
	clear(c.items)
	c.items = c.items[:0]
	c.follow, c.anchor, c.anchorOff = true, 0, 0
	c.first, c.last = 0, -1
}

// following reports whether the list is pinned to the bottom.
func (c *chatList) following() bool { return c.follow }

// visible returns the first and last item shown, fully or partly, by the
// last View; last < first when nothing was.
func (c *chatList) visible() (first, last int) { return c.first, c.last }

// View renders the pane: exactly height lines joined by "\n", none wider
// than width cells. It remembers the size for scrolling.
func (c *chatList) View(width, height int) string {
	c.width, c.height = width, height
	c.first, c.last = 0, -1
	if height <= 0 {
		return ""
	}
	lines := make([]string, 0, height)
	if width > 0 && len(c.items) > 0 {
		end := false
		if !c.follow {
			c.clampAnchor()
			lines, end = c.viewFromAnchor(lines)
		}
		if end {
			// The view from the anchor shows the end of the list (it
			// shrank, or re-flowed shorter): follow the bottom again.
			c.follow = true
			lines = lines[:0]
		}
		if c.follow {
			lines = c.viewBottom(lines)
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(fitWidth(lines, max(width, 0)), "\n")
}

// viewBottom fills lines with the last height lines of the list, or all of
// them when the list is shorter than the pane.
func (c *chatList) viewBottom(lines []string) []string {
	var blocks []paneBlock // from the bottom up
	n, i := 0, len(c.items)-1
	for ; i >= 0 && n < c.height; i-- {
		b := c.block(i)
		blocks = append(blocks, b)
		n += b.height()
	}
	c.first, c.last = i+1, len(c.items)-1
	skip := max(n-c.height, 0) // lines of the top block above the pane
	for k := len(blocks) - 1; k >= 0; k-- {
		b := blocks[k]
		cut := min(skip, b.height())
		skip -= cut
		lines = b.appendTo(lines, cut, b.height())
	}
	return lines
}

// viewFromAnchor fills lines from the anchor down; end reports that they
// reach the last line of the list.
func (c *chatList) viewFromAnchor(lines []string) (_ []string, end bool) {
	c.first = c.anchor
	off := c.anchorOff
	for i := c.anchor; i < len(c.items) && len(lines) < c.height; i++ {
		b := c.block(i)
		h := b.height()
		take := min(h, off+c.height-len(lines))
		if off < take {
			lines = b.appendTo(lines, off, take)
		}
		end = i == len(c.items)-1 && take == h
		off = 0
		c.last = i
	}
	return lines, end
}

// paneBlock is one item's lines in the pane: a blank separator line (sep,
// 0 or 1) and the item's rendering.
type paneBlock struct {
	sep   int
	lines []string
}

func (b paneBlock) height() int { return b.sep + len(b.lines) }

// appendTo appends the block's lines from..to-1 (the separator is line 0
// when there is one) to dst.
func (b paneBlock) appendTo(dst []string, from, to int) []string {
	if from < b.sep && from < to {
		dst = append(dst, "")
		from++
	}
	if from < to {
		dst = append(dst, b.lines[from-b.sep:to-b.sep]...)
	}
	return dst
}

// block returns item i's lines at the current width, preceded by the blank
// separator line unless it is the first item. An item that renders nothing
// takes no lines, separator included. A linesItem's lines are taken as they
// are; other items' renderings are split.
func (c *chatList) block(i int) paneBlock {
	var lines []string
	if li, ok := c.items[i].(linesItem); ok {
		lines = li.Lines(c.width)
	} else if s := c.items[i].Render(c.width); s != "" {
		lines = strings.Split(s, "\n")
	}
	if len(lines) == 0 {
		return paneBlock{}
	}
	return paneBlock{sep: min(i, 1), lines: lines}
}

// blockHeight is c.block(i).height() without splitting the rendering.
func (c *chatList) blockHeight(i int) int {
	if li, ok := c.items[i].(linesItem); ok {
		if n := len(li.Lines(c.width)); n > 0 {
			return min(i, 1) + n
		}
		return 0
	}
	s := c.items[i].Render(c.width)
	if s == "" {
		return 0
	}
	return min(i, 1) + strings.Count(s, "\n") + 1
}

// scrollUp moves the view n lines towards the top. It unpins the list,
// unless everything fits in the pane and there is nowhere to go.
func (c *chatList) scrollUp(n int) {
	if n <= 0 || c.height <= 0 || c.width <= 0 || len(c.items) == 0 {
		return
	}
	if c.follow {
		if !c.anchorAtBottom() {
			return
		}
		c.follow = false
	}
	c.anchorOff -= n
	for c.anchorOff < 0 && c.anchor > 0 {
		c.anchor--
		c.anchorOff += c.blockHeight(c.anchor)
	}
	c.anchorOff = max(c.anchorOff, 0)
}

// scrollDown moves the view n lines towards the bottom; reaching the bottom
// pins the list again.
func (c *chatList) scrollDown(n int) {
	if n <= 0 || c.follow || c.height <= 0 || c.width <= 0 {
		return
	}
	c.clampAnchor()
	c.anchorOff += n
	for c.anchor < len(c.items)-1 {
		h := c.blockHeight(c.anchor)
		if c.anchorOff < h {
			break
		}
		c.anchorOff -= h
		c.anchor++
	}
	c.repinAtBottom()
}

// pageStep is how far a page moves: the pane less one line of context.
func (c *chatList) pageStep() int { return max(c.height-1, 1) }

// pageUp scrolls up by a page.
func (c *chatList) pageUp() { c.scrollUp(c.pageStep()) }

// pageDown scrolls down by a page.
func (c *chatList) pageDown() { c.scrollDown(c.pageStep()) }

// top shows the first line of the first item.
func (c *chatList) top() { c.scrollTo(0) }

// bottom pins the list to the bottom.
func (c *chatList) bottom() { c.follow = true }

// reveal scrolls as little as needed for it to be seen whole: when it
// starts above the pane, or is taller than the pane, its first line goes to
// the top; when it ends below the pane, the view moves down until its last
// line is the pane's last. An item not in the list, or one already in
// full view, changes nothing.
func (c *chatList) reveal(it item) {
	if c.height <= 0 || c.width <= 0 {
		return
	}
	i := -1
	for k, x := range c.items {
		if x == it {
			i = k
		}
	}
	if i < 0 {
		return
	}
	if c.follow {
		if !c.anchorAtBottom() {
			return // everything fits
		}
		c.follow = false
	}
	c.clampAnchor()
	sep := 0
	if i > 0 && c.blockHeight(i) > 0 {
		sep = 1 // the blank line above the item
	}
	if i < c.anchor || (i == c.anchor && c.anchorOff > sep) {
		c.scrollTo(i)
		return
	}
	top := -c.anchorOff
	for k := c.anchor; k < i; k++ {
		top += c.blockHeight(k)
	}
	bottom := top + c.blockHeight(i)
	switch {
	case bottom-top-sep > c.height:
		c.scrollTo(i)
	case bottom > c.height:
		c.scrollDown(bottom - c.height)
	default:
		c.repinAtBottom()
	}
}

// scrollTo puts item i at the top of the pane (or as high as the end of the
// list allows; then the list follows the bottom again).
func (c *chatList) scrollTo(i int) {
	if len(c.items) == 0 {
		return
	}
	c.follow = false
	c.anchor, c.anchorOff = min(max(i, 0), len(c.items)-1), 0
	if c.anchor > 0 && c.blockHeight(c.anchor) > 0 {
		c.anchorOff = 1 // start at the item, not at the blank line above it
	}
	c.repinAtBottom()
}

// anchorAtBottom sets the anchor to the view a following list shows. It
// returns false when the whole list fits in the pane.
func (c *chatList) anchorAtBottom() bool {
	n := 0
	for i := len(c.items) - 1; i >= 0; i-- {
		n += c.blockHeight(i)
		if n > c.height {
			c.anchor, c.anchorOff = i, n-c.height
			return true
		}
	}
	return false
}

// clampAnchor keeps the anchor inside the list after it shrank or items
// re-flowed shorter.
func (c *chatList) clampAnchor() {
	if len(c.items) == 0 {
		c.anchor, c.anchorOff = 0, 0
		return
	}
	if c.anchor >= len(c.items) {
		c.anchor, c.anchorOff = max(len(c.items)-1, 0), 0
	}
	if h := c.blockHeight(c.anchor); c.anchorOff >= h {
		c.anchorOff = max(h-1, 0)
	}
}

// repinAtBottom follows the bottom again when the lines from the anchor to
// the end fit in the pane: the view already shows the end.
func (c *chatList) repinAtBottom() {
	if c.height <= 0 || c.width <= 0 {
		return
	}
	rest := -c.anchorOff
	for i := c.anchor; i < len(c.items); i++ {
		rest += c.blockHeight(i)
		if rest > c.height {
			return
		}
	}
	c.follow = true
}
