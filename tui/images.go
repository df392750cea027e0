package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/turn"
)

// maxPastedImage bounds an image file or clipboard image, in bytes.
const maxPastedImage = 32 << 20

// pastedImage is an image the person attached while typing a prompt: a
// pasted path of an image file, or Ctrl+V of an image on the clipboard.
// The input shows its tag ("[Image #1]"); a prompt sent with the tag in
// its text carries the picture.
type pastedImage struct {
	tag, name string
	img       media.Image
}

// imageReadMsg is an image read for the input (from a pasted path or the
// clipboard), or why none was: raw, when not empty, is the pasted text,
// which then goes to the input as it is.
type imageReadMsg struct {
	name string
	img  media.Image
	err  error
	raw  string
}

// imagePathOf reads pasted text as the path of an image file, as
// terminals paste a dragged file: one line, maybe quoted, maybe with
// backslash-escaped spaces, maybe a file:// URL; relative to dir. ok is
// false for anything else.
func imagePathOf(pasted, dir string) (string, bool) {
	p := strings.TrimSpace(pasted)
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else {
		p = strings.ReplaceAll(p, `\ `, " ")
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", false
		}
		p = u.Path
	}
	if !media.IsImagePath(p) {
		return "", false
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		p = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, true
}

// readImageFile reads and scales the image at path; raw is the pasted
// text to fall back on.
func readImageFile(path, raw string) tea.Cmd {
	return func() tea.Msg {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPastedImage {
			return imageReadMsg{raw: raw, err: errors.New("not a readable image file")}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return imageReadMsg{raw: raw, err: err}
		}
		img, err := media.Fit(data, media.Default)
		return imageReadMsg{name: filepath.Base(path), img: img, err: err, raw: raw}
	}
}

// clipboardCommands are the programs that print the clipboard's image as
// PNG: wl-paste on Wayland, xclip on X11, pngpaste on macOS; each is
// tried when its display (or platform) is there and it is installed.
func clipboardCommands() [][]string {
	var cmds [][]string
	if os.Getenv("WAYLAND_DISPLAY") != "" {
		cmds = append(cmds, []string{"wl-paste", "--no-newline", "--type", "image/png"})
	}
	if os.Getenv("DISPLAY") != "" {
		cmds = append(cmds, []string{"xclip", "-selection", "clipboard", "-target", "image/png", "-out"})
	}
	return append(cmds, []string{"pngpaste", "-"})
}

// clipboardTextMsg is Ctrl+V when the clipboard holds no image: the key
// goes to the input, which pastes the clipboard's text.
type clipboardTextMsg struct{ key tea.KeyPressMsg }

// pasteClipboard reads the clipboard's image for Ctrl+V (key); without
// one the key goes to the input.
func pasteClipboard(key tea.KeyPressMsg) tea.Cmd {
	return func() tea.Msg {
		msg := readClipboardImage()
		if msg.err != nil {
			return clipboardTextMsg{key}
		}
		return msg
	}
}

// readClipboardImage reads the clipboard's image with the first of
// clipboardCommands that is installed and gives one.
func readClipboardImage() imageReadMsg {
	tried := false
	for _, c := range clipboardCommands() {
		if _, err := exec.LookPath(c[0]); err != nil {
			continue
		}
		tried = true
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Stdout = &out
		err := cmd.Run()
		cancel()
		if err != nil || out.Len() == 0 || out.Len() > maxPastedImage {
			continue
		}
		img, err := media.Fit(out.Bytes(), media.Default)
		return imageReadMsg{name: "clipboard.png", img: img, err: err}
	}
	if !tried {
		return imageReadMsg{err: errors.New("no clipboard program found (wl-paste, xclip or pngpaste)")}
	}
	return imageReadMsg{err: errors.New("no image on the clipboard")}
}

// imageRead attaches an image that was read: its tag goes into the input
// at the cursor. Pasted text that was no image after all goes in as it
// is; a clipboard without an image is a note.
func (m *Model) imageRead(msg imageReadMsg) tea.Cmd {
	if msg.err != nil {
		if msg.raw != "" {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(tea.PasteMsg{Content: msg.raw})
			return cmd
		}
		m.chat.append(newNoteItem(m.st, "No image attached: "+msg.err.Error()+"."))
		return nil
	}
	tag := fmt.Sprintf("[Image #%d]", len(m.images)+1)
	m.images = append(m.images, pastedImage{tag: tag, name: msg.name, img: msg.img})
	m.input.InsertString(tag + " ")
	return nil
}

// prompt is the turn's prompt for text: the text, then each attached
// image whose tag the text still holds, after a line naming it.
func (m *Model) prompt(text string) turn.Prompt {
	p := turn.Text(text)
	for _, im := range m.images {
		if !strings.Contains(text, im.tag) {
			continue
		}
		p.Message.Parts = append(p.Message.Parts,
			providers.Text{Text: fmt.Sprintf("\n\n%s %s: %s", im.tag, im.name, im.img.Note())},
			providers.Image{MediaType: im.img.MediaType, Data: im.img.Data})
	}
	return p
}
