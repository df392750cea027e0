package mention

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/agent-dev/agent/tools"
)

const (
	// FileMax is the most bytes of one attachment; a longer one is cut at a
	// line boundary and says so.
	FileMax = 32 << 10
	// TotalMax is the most bytes all the attachments of one prompt take;
	// mentions past it are cut or left unattached, with a note.
	TotalMax = 128 << 10
	// fileLines is the most lines of a file read_file is asked for.
	fileLines = 1000
)

// Attachment is one mention that was attached.
type Attachment struct {
	// Path is the slash path as mentioned (without "@" and trailing
	// punctuation); Dir is true for a directory's listing.
	Path string
	Dir  bool
	// Bytes is the size of the attached text; Cut is true when it was cut
	// to the caps.
	Bytes int
	Cut   bool
	// Skipped, when not "", says why a path that exists was not attached
	// (binary, unreadable, the prompt's attachments full); the model reads
	// the same in the prompt.
	Skipped string
	// Images are the pictures attached (a mentioned PNG, JPEG, GIF or
	// WebP, as read_file returns it); the caller sends them after the
	// prompt's text. Nil for text.
	Images []tools.Image
}

// Expand returns prompt with the content of each path (and MCP resource,
// @SERVER:URI, see UseResources) it mentions
// attached after it, and what was attached. A file's content is read_file's
// output (numbered lines, at most fileLines of them), a directory's (a
// mention ending in "/" or naming a directory) list_files' listing; each is
// cut to FileMax bytes, all together to TotalMax, with a note where cut. A
// mention that does not name a file or directory inside the working
// directory (missing, outside) is left as plain text and not attached; one
// that names a file read_file refuses (binary) is listed with Skipped set,
// and nothing of it is attached. An image is attached as read_file returns
// it: its line of text in the element, the picture in Attachment.Images. The prompt itself is unchanged; attachments follow it, each
// in an <attached> element:
//
//	PROMPT
//
//	<attached path="main.go">
//	     1	package main
//	</attached>
//
// Reads are recorded as reads of session (see New). Cancelling ctx stops
// the reads; what was read by then is attached.
func (m *Mentions) Expand(ctx context.Context, session, prompt string) (string, []Attachment) {
	var b strings.Builder
	var atts []Attachment
	budget := TotalMax
	seen := map[string]bool{}
	res := m.resources()
	for _, p := range Find(prompt) {
		if ctx.Err() != nil {
			break
		}
		mentioned := p
		p, isDir, ok := m.resolve(p)
		if !ok {
			if a, text, ok := m.resource(ctx, res, mentioned, budget, seen); ok {
				if a.Skipped == "" {
					budget -= len(text)
					fmt.Fprintf(&b, "\n\n<attached path=%q>\n%s\n</attached>", a.Path, strings.TrimRight(text, "\n"))
				}
				atts = append(atts, a)
			}
			continue
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		if budget <= 0 {
			why := fmt.Sprintf("the attachments of this prompt reached %d KiB", TotalMax>>10)
			fmt.Fprintf(&b, "\n\n<attached path=%q>\n(not attached: %s; read it with read_file)\n</attached>", p, why)
			atts = append(atts, Attachment{Path: p, Dir: isDir, Skipped: why})
			continue
		}
		text, imgs, ok := m.content(ctx, session, p, isDir)
		if !ok {
			if ctx.Err() == nil {
				atts = append(atts, Attachment{Path: p, Dir: isDir, Skipped: text})
			}
			continue
		}
		text, cut := capText(text, min(FileMax, budget), isDir)
		budget -= len(text)
		fmt.Fprintf(&b, "\n\n<attached path=%q>\n%s\n</attached>", p, strings.TrimRight(text, "\n"))
		atts = append(atts, Attachment{Path: p, Dir: isDir, Bytes: len(text), Cut: cut, Images: imgs})
	}
	if len(atts) == 0 && b.Len() == 0 {
		return prompt, nil
	}
	return prompt + b.String(), atts
}

// resource attaches a mentioned MCP resource (SERVER:URI, as written or
// without trailing punctuation); ok is false when p names none. A
// resource that cannot be read is listed with Skipped.
func (m *Mentions) resource(ctx context.Context, r Resources, p string, budget int, seen map[string]bool) (Attachment, string, bool) {
	var failed *Attachment
	for _, cand := range []string{p, strings.TrimRight(p, trailing)} {
		server, uri, ok := resourceOf(r, cand)
		if !ok || (failed != nil && failed.Path == cand) {
			continue
		}
		if seen[cand] {
			return Attachment{}, "", false
		}
		if budget <= 0 {
			seen[cand] = true
			return Attachment{Path: cand, Skipped: fmt.Sprintf("the attachments of this prompt reached %d KiB", TotalMax>>10)}, "", true
		}
		text, imgs, cut, ok := attachResource(ctx, r, server, uri, min(FileMax, budget))
		if !ok {
			if failed == nil {
				failed = &Attachment{Path: cand, Skipped: text}
			}
			continue
		}
		seen[cand] = true
		return Attachment{Path: cand, Bytes: len(text), Cut: cut, Images: imgs}, text, true
	}
	if failed != nil {
		seen[failed.Path] = true
		return *failed, "", true
	}
	return Attachment{}, "", false
}

// resolve finds what a mention names: the path as written, else without
// trailing punctuation. ok is false when neither exists inside the root.
func (m *Mentions) resolve(p string) (clean string, isDir, ok bool) {
	for _, cand := range []string{p, strings.TrimRight(p, trailing)} {
		if cand == "" {
			continue
		}
		fi, err := fs.Stat(m.root.FS(), cleanRel(cand))
		if err != nil {
			continue
		}
		if fi.IsDir() {
			return strings.TrimSuffix(cand, "/") + "/", true, true
		}
		if strings.HasSuffix(cand, "/") || !fi.Mode().IsRegular() {
			continue
		}
		return cand, false, true
	}
	return "", false, false
}

// cleanRel turns a mention into the slash path fs.FS expects, "." for the
// root; a path that leaves the root becomes one that fs.Stat refuses.
func cleanRel(p string) string {
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if c == "/" || c == "" {
		return "."
	}
	return c
}

// content runs read_file or list_files on p; ok is false when the tool
// answers with an error (binary, unreadable, outside the root), and the
// text is then the tool's message.
func (m *Mentions) content(ctx context.Context, session, p string, isDir bool) (string, []tools.Image, bool) {
	tool, args := m.read, map[string]any{"path": p, "limit": fileLines}
	if isDir {
		tool, args = m.list, map[string]any{"path": p}
	}
	raw, _ := json.Marshal(args)
	res, err := tool.Run(ctx, tools.Call{Session: session, Args: raw})
	switch {
	case err != nil:
		return err.Error(), nil, false
	case res.IsError:
		return res.Content, nil, false
	}
	return res.Content, res.Images, true
}

// capText cuts text to at most limit bytes at a line boundary and adds a
// note that says where it was cut and how to read on.
func capText(text string, limit int, isDir bool) (string, bool) {
	if len(text) <= limit {
		return text, false
	}
	cut := text[:limit]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	shown := strings.Count(cut, "\n")
	if isDir {
		return cut + fmt.Sprintf("(listing cut at %d KiB after %d entries; use list_files for the rest)\n", limit>>10, shown), true
	}
	// read_file numbers its lines: the last one shown tells where to go on.
	next := 1
	lastLine := strings.TrimSuffix(cut, "\n")
	lastLine = lastLine[strings.LastIndexByte(lastLine, '\n')+1:]
	if _, err := fmt.Sscanf(strings.TrimSpace(lastLine), "%d", &next); err == nil {
		next++
	}
	return cut + fmt.Sprintf("(attachment cut at %d KiB; read_file with offset=%d reads on)\n", limit>>10, next), true
}

// Strip splits a prompt that Expand attached files to into the prompt as
// typed and the attached paths, for showing a stored message.
func Strip(text string) (prompt string, attached []string) {
	i := strings.Index(text, "\n\n<attached path=")
	if i < 0 {
		return text, nil
	}
	prompt, rest := text[:i], text[i:]
	for {
		_, after, ok := strings.Cut(rest, "<attached path=")
		if !ok {
			break
		}
		end := strings.Index(after, ">\n")
		if end < 0 {
			break
		}
		var p string
		if _, err := fmt.Sscanf(after[:end], "%q", &p); err == nil {
			attached = append(attached, p)
		}
		_, rest, ok = strings.Cut(after, "\n</attached>")
		if !ok {
			break
		}
	}
	return prompt, attached
}

// Note says in one line what a prompt's mentions attached ("Attached
// main.go (1.2 KiB). Not attached: x.bin (binary)."); "" for none.
func Note(atts []Attachment) string {
	var parts, skipped []string
	for _, a := range atts {
		if a.Skipped != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", a.Path, a.Skipped))
			continue
		}
		size := a.Bytes
		for _, img := range a.Images {
			size += len(img.Data) // a picture's size is its file's, not its note's
		}
		s := fmt.Sprintf("%s (%s)", a.Path, byteSize(size))
		if a.Cut {
			s += ", cut"
		}
		parts = append(parts, s)
	}
	var out []string
	if len(parts) > 0 {
		out = append(out, "Attached "+strings.Join(parts, ", ")+".")
	}
	if len(skipped) > 0 {
		out = append(out, "Not attached: "+strings.Join(skipped, "; ")+".")
	}
	return strings.Join(out, " ")
}

// byteSize formats a byte count for people.
func byteSize(n int) string {
	if n >= 1<<10 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
