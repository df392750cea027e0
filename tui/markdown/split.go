package markdown

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// scanBlock scans src, which must begin at a block boundary (the start of the
// text, or an offset scanBlock returned earlier), and returns the byte offset
// in src where the first finished block ends and the next one begins, or -1
// when no such boundary is known yet. defs holds the link reference
// definition lines (each ending in "\n") of src[:end], or of all of src when
// end is -1.
//
// A boundary is placed before a line L when all of these hold:
//   - L is complete (a "\n" follows it), so its first characters are final;
//   - at least one blank line precedes L, and some content precedes that;
//   - L starts in column 0 (an indented line may continue a list item or an
//     indented code block);
//   - no fenced code block (``` or ~~~, closed by a fence of the same
//     character at least as long) and no HTML block of CommonMark types 1-5
//     (<script>, <pre>, <style>, <textarea>, comments, <?...?>, <!X...>,
//     CDATA; these run past blank lines) is open;
//   - L does not continue the block before it: it is not a list marker when
//     the block holds a list (a new item keeps a loose list together), it
//     does not start with ':' (a definition description turns the paragraph
//     before it into a term), and when the block holds a definition list the
//     paragraph L starts is not followed by a ':' line (it would be a new
//     term of that list); when that cannot be known yet, scanning stops.
//
// The decision for a boundary depends only on complete lines before it (and,
// for definition lists, complete lines after it up to a blank line), so a
// boundary found in a prefix of a text is a boundary of every longer text:
// that is what lets Stream cache finished blocks.
func scanBlock(src string) (end int, defs string) {
	s := blockScan{defOK: true}
	for pos := 0; pos < len(src); {
		line, next, complete := lineAt(src, pos)
		if s.boundaryBefore(src, pos, line, complete) {
			return pos, s.defs
		}
		pos = next
	}
	return -1, s.defs
}

// blockScan is scanBlock's state between the lines it reads.
type blockScan struct {
	content bool   // a non-blank line has been seen
	blank   bool   // a blank line followed the last content
	defOK   bool   // a link reference definition may start here
	list    bool   // a list marker appeared at indent 0-3
	defList bool   // a ':' description line appeared
	stop    bool   // a boundary cannot be decided yet: look for defs only
	fence   byte   // the fence character of an open fenced code block
	fenceN  int    // its length
	fenceIn int    // its indent
	html    string // the end marker of an open HTML block (types 1-5)
	prevBl  bool   // the previous line was blank
	defs    string // the link reference definition lines so far
}

// boundaryBefore reads the line at pos of src (complete when a "\n" ends
// it) and reports whether a block boundary lies before it.
func (s *blockScan) boundaryBefore(src string, pos int, line string, complete bool) bool {
	ind, rest := indentation(line)
	isBlank := rest == ""
	wasBlank := s.prevBl
	s.prevBl = isBlank
	if s.fence != 0 && s.inFence(rest, ind, isBlank, wasBlank) {
		return false
	}
	if s.html != "" {
		if strings.Contains(strings.ToLower(line), s.html) {
			s.html = ""
		}
		return false
	}
	if isBlank {
		s.blank = s.blank || s.content
		s.defOK = true
		return false
	}
	if s.blank && ind == 0 && !s.stop && s.startsBlock(src, pos, rest, complete) {
		return true
	}
	s.blank, s.content = false, true
	s.opens(rest, ind)
	return false
}

// inFence reports whether a line (rest after ind columns of indentation)
// belongs to the open fenced code block, the closing fence included. In a
// list, an unindented line ends the item that holds an indented fence
// (fenced code has no lazy continuation): the fence closes and the line is
// read as any other.
func (s *blockScan) inFence(rest string, ind int, isBlank, wasBlank bool) bool {
	if closesFence(rest, ind, s.fence, s.fenceN, s.list, s.fenceIn) {
		s.fence, s.defOK = 0, false
		return true
	}
	if !(s.list && s.fenceIn > 0 && !isBlank && ind == 0) {
		return true
	}
	s.fence, s.blank = 0, wasBlank
	return false
}

// startsBlock decides whether the unindented line at pos (rest, complete
// when a "\n" ends it), after a blank line, starts a new block rather than
// continuing the one before; when that cannot be known yet it sets stop.
func (s *blockScan) startsBlock(src string, pos int, rest string, complete bool) bool {
	switch {
	case !complete:
		s.stop = true
	case s.list && isListMarker(rest), rest[0] == ':':
		// continues the block before it
	case s.defList:
		switch termFollows(src, pos) {
		case termNo:
			return true
		case termUnknown:
			s.stop = true
		}
	default:
		return true
	}
	return false
}

// opens reads a content line (rest after ind columns of indentation) that
// starts no new block: the fence or HTML block it opens, the list or
// definition list it shows, the link reference definition it holds.
func (s *blockScan) opens(rest string, ind int) {
	if c, n := fenceOpen(rest); n > 0 && (ind <= 3 || s.list) {
		s.fence, s.fenceN, s.fenceIn, s.defOK = c, n, ind, false
		return
	}
	if ind <= 3 {
		if endMark, after := htmlOpen(rest); endMark != "" {
			if !strings.Contains(strings.ToLower(after), endMark) {
				s.html = endMark
			}
			s.defOK = false
			return
		}
		if isListMarker(rest) {
			s.list = true
		}
		if rest[0] == ':' {
			s.defList = true
		}
		if s.defOK && isRefDef(rest) && isDefinition(rest) {
			s.defs += rest + "\n"
			return
		}
	}
	s.defOK = false
}

// splitBlocks returns the byte offsets where the finished blocks of text
// end, in order; the text after the last offset is the unfinished tail.
// defs holds the definitions of the finished blocks, tailDefs those of the
// tail.
func splitBlocks(text string) (cuts []int, defs, tailDefs string) {
	start := 0
	for {
		end, d := scanBlock(text[start:])
		if end < 0 {
			return cuts, defs, d
		}
		start += end
		cuts = append(cuts, start)
		defs += d
	}
}

// lineAt returns the line starting at pos without its "\n" (and a "\r"
// before it), the offset of the next line, and whether the line is complete.
func lineAt(src string, pos int) (line string, next int, complete bool) {
	nl := strings.IndexByte(src[pos:], '\n')
	if nl < 0 {
		return src[pos:], len(src), false
	}
	return strings.TrimSuffix(src[pos:pos+nl], "\r"), pos + nl + 1, true
}

// indentation returns the indent of line in columns (a tab advances to the
// next multiple of 4) and the line without it. rest is "" for a blank line.
func indentation(line string) (ind int, rest string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			ind++
		case '\t':
			ind += 4 - ind%4
		default:
			return ind, strings.TrimRight(line[i:], " \t")
		}
	}
	return ind, ""
}

// fenceOpen reports the character and length of the code fence that rest
// opens, or n == 0.
func fenceOpen(rest string) (c byte, n int) {
	if rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return 0, 0
	}
	c = rest[0]
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(rest[n:], '`') >= 0) {
		return 0, 0
	}
	return c, n
}

// closesFence reports whether the line closes the open fence.
func closesFence(rest string, ind int, c byte, n int, list bool, fenceIn int) bool {
	if ind > 3 && !(list && ind <= fenceIn+3) {
		return false
	}
	k := 0
	for k < len(rest) && rest[k] == c {
		k++
	}
	return k >= n && k == len(rest)
}

// isListMarker reports whether rest starts with a bullet (-, +, *) or an
// ordered marker (1-9 digits and . or )) followed by a space, a tab or the
// end of the line.
func isListMarker(rest string) bool {
	i := 0
	switch {
	case rest[0] == '-' || rest[0] == '+' || rest[0] == '*':
		i = 1
	default:
		for i < len(rest) && i < 10 && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 || i >= len(rest) || (rest[i] != '.' && rest[i] != ')') {
			return false
		}
		i++
	}
	return i == len(rest) || rest[i] == ' ' || rest[i] == '\t'
}

// htmlOpen returns the end marker of the CommonMark HTML block (types 1-5)
// that rest opens, lower-cased, and the text after the opener; endMark is ""
// when rest opens none of them. Types 6 and 7 end at a blank line and need
// no tracking.
func htmlOpen(rest string) (endMark, after string) {
	if len(rest) < 2 || rest[0] != '<' {
		return "", ""
	}
	lower := strings.ToLower(rest)
	for _, tag := range [...]string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(lower[1:], tag) {
			k := 1 + len(tag)
			if k == len(lower) || lower[k] == ' ' || lower[k] == '\t' || lower[k] == '>' {
				return "</" + tag + ">", lower[k:]
			}
		}
	}
	switch {
	case strings.HasPrefix(lower, "<!--"):
		return "-->", lower[4:]
	case strings.HasPrefix(lower, "<?"):
		return "?>", lower[2:]
	case strings.HasPrefix(lower, "<![cdata["):
		return "]]>", lower[9:]
	case lower[1] == '!' && len(lower) > 2 && lower[2] >= 'a' && lower[2] <= 'z':
		return ">", lower[2:]
	}
	return "", ""
}

// isRefDef reports whether rest starts a one-line link reference
// definition: [label]: destination. Titles on a following line are not
// recognised.
func isRefDef(rest string) bool {
	if rest[0] != '[' {
		return false
	}
	i := 1
	for ; i < len(rest) && rest[i] != ']'; i++ {
		switch rest[i] {
		case '\\':
			i++
		case '[':
			return false
		}
	}
	if i == 1 || i+1 >= len(rest) || rest[i+1] != ':' {
		return false
	}
	return strings.TrimLeft(rest[i+2:], " \t") != ""
}

// defParser parses a candidate definition line; see isDefinition.
var defParser = sync.OnceValue(func() parser.Parser { return goldmark.New().Parser() })

// isDefinition reports whether goldmark reads line alone as a link
// reference definition (CommonMark 0.31, section 4.7): isRefDef only
// looks at its shape, and a line such as "[Note]: read this first" is a
// paragraph, which must not be copied before every block as a definition.
func isDefinition(line string) bool {
	ctx := parser.NewContext()
	doc := defParser().Parse(text.NewReader([]byte(line+"\n")), parser.WithContext(ctx))
	if len(ctx.References()) == 0 {
		return false
	}
	// goldmark leaves an empty paragraph where the definition was.
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Lines().Len() > 0 || c.HasChildren() {
			return false
		}
	}
	return true
}

type termAnswer int

const (
	termNo termAnswer = iota
	termYes
	termUnknown
)

// termFollows reports whether the paragraph starting at pos is followed by
// a ':' description line (making it a new term of an open definition list).
func termFollows(src string, pos int) termAnswer {
	for pos < len(src) {
		line, next, complete := lineAt(src, pos)
		if !complete {
			return termUnknown
		}
		ind, rest := indentation(line)
		if rest == "" {
			return termNo
		}
		if ind <= 3 && rest[0] == ':' {
			return termYes
		}
		pos = next
	}
	return termUnknown
}
