package memory

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent-dev/agent/tools/shell"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// DefaultContext is how many messages Get shows either side of one named
// message when not told.
const DefaultContext = 2

// getMaxBytes caps what one Get returns (48 KiB); the cut says how to read
// on.
const getMaxBytes = 48 << 10

// partMaxChars caps one part of a message as Get shows it.
const partMaxChars = 4000

// ErrNoSuchKey is what Get returns, wrapped with what it looked for, when
// the key names no memory file and no session.
var ErrNoSuchKey = errors.New("no such memory")

// Get returns what key names, as text for the model:
//
//   - "MEMORY.md": the long-term memory file;
//   - "2026-11-20" or "2026-11-20.md": that day's notes;
//   - "KEY/MEMORY.md", "KEY/2026-11-20": another project's file (KEY as
//     memory_search shows it);
//   - "SESSION": a session's messages (an id or a unique prefix of at least
//     4 characters), from the first;
//   - "SESSION:14": message 14 with around messages either side (0 or less:
//     DefaultContext);
//   - "SESSION:10-20": messages 10 to 20.
//
// The text is cut at 48 KiB with a note naming the key that reads on. A
// key that names nothing is ErrNoSuchKey; a session lookup error is the
// store's (sessions.ErrNotFound, sessions.ErrAmbiguous).
func (m *Memory) Get(ctx context.Context, key string, around int) (string, error) {
	text, err := m.get(ctx, key, around)
	return shell.MaskSecrets(text), err
}

func (m *Memory) get(ctx context.Context, key string, around int) (string, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return "", fmt.Errorf("%w: the key is empty; give MEMORY.md, a date (2026-11-20) or a session id", ErrNoSuchKey)
	}
	if name, ok := fileName(key); ok {
		return m.getFile(m.dir, name)
	}
	if proj, rest, ok := strings.Cut(key, "/"); ok {
		name, isFile := fileName(rest)
		if !isFile || !validKey(proj) {
			return "", fmt.Errorf("%w: %q", ErrNoSuchKey, key)
		}
		return m.getFile(filepath.Join(m.base, proj), name)
	}
	return m.getSession(ctx, key, around)
}

// validKey reports whether s can be a project's directory name (no path
// separators, not "." or "..").
func validKey(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`)
}

// fileName maps a key to a memory file's name: "MEMORY.md" (any case),
// "2026-11-20" and "2026-11-20.md".
func fileName(key string) (string, bool) {
	if strings.EqualFold(key, LongTermFile) || strings.EqualFold(key, "MEMORY") {
		return LongTermFile, true
	}
	name := strings.TrimSuffix(key, ".md") + ".md"
	if _, ok := noteDay(name); ok {
		return name, true
	}
	return "", false
}

func (m *Memory) getFile(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	data, err := readRegular(path, getMaxBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("%s: %s does not exist", ErrNoSuchKey, name)
		if days := noteDays(dir); len(days) > 0 {
			msg += "; daily notes exist for " + strings.Join(days, ", ")
		}
		return "", errors.New(msg)
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	text := string(data)
	if strings.TrimSpace(text) == "" {
		return name + " is empty.", nil
	}
	if len(text) > getMaxBytes {
		text = cut(text, getMaxBytes) + "\n(" + name + " is longer than 48 KiB; the rest was cut.)"
	}
	return text, nil
}

// noteDays lists the days of dir's daily notes, latest first, at most 10.
func noteDays(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var days []string
	for _, e := range entries {
		if _, ok := noteDay(e.Name()); ok {
			days = append(days, strings.TrimSuffix(e.Name(), ".md"))
		}
	}
	slices.Sort(days)
	slices.Reverse(days)
	return days[:min(len(days), 10)]
}

func (m *Memory) getSession(ctx context.Context, key string, around int) (string, error) {
	if m.store == nil {
		return "", fmt.Errorf("%w: %q (no session store)", ErrNoSuchKey, key)
	}
	id, span, _ := strings.Cut(key, ":")
	from, to, err := parseSpan(span, around)
	if err != nil {
		return "", fmt.Errorf("key %q: %w", key, err)
	}
	ss, err := m.store.Get(ctx, id)
	if err != nil {
		return "", err
	}
	recs, err := m.store.MessageRange(ctx, ss.ID, from, to)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s", ss.ID)
	if ss.Title != "" {
		fmt.Fprintf(&b, " %q", ss.Title)
	}
	fmt.Fprintf(&b, " in %s, %s, %d messages.\n", ss.Dir, ss.CreatedAt.Format("2006-01-02 15:04"), ss.Messages)
	if len(recs) == 0 {
		fmt.Fprintf(&b, "No messages in %d-%d.\n", from, to)
		return b.String(), nil
	}
	for _, r := range recs {
		msg := formatMessage(r)
		if b.Len()+len(msg) > getMaxBytes {
			fmt.Fprintf(&b, "\n(cut at 48 KiB; memory_get with key %s:%d-%d reads on.)\n", ss.ID, r.Seq, recs[len(recs)-1].Seq)
			break
		}
		b.WriteString(msg)
	}
	return b.String(), nil
}

// parseSpan reads "", "14" or "10-20".
func parseSpan(span string, around int) (from, to int, err error) {
	if span == "" {
		return 1, int(^uint(0) >> 1), nil
	}
	if around <= 0 {
		around = DefaultContext
	}
	a, b, isRange := strings.Cut(span, "-")
	from, err = strconv.Atoi(strings.TrimSpace(a))
	if err != nil || from < 1 {
		return 0, 0, fmt.Errorf("the message id %q is not a number from 1 (write SESSION:14 or SESSION:10-20)", a)
	}
	if !isRange {
		return max(from-around, 1), from + around, nil
	}
	to, err = strconv.Atoi(strings.TrimSpace(b))
	if err != nil || to < from {
		return 0, 0, fmt.Errorf("the range %q does not end at a number from %d", span, from)
	}
	return from, to, nil
}

// formatMessage shows one stored message: its id, role and time, then its
// text, tool calls and tool results (reasoning left out), each cut to
// partMaxChars.
func formatMessage(r sessions.MessageRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[%d] %s, %s:\n", r.Seq, r.Message.Role, r.CreatedAt.Format("2006-01-02 15:04"))
	for _, p := range r.Message.Parts {
		switch p := p.(type) {
		case providers.Text:
			b.WriteString(cut(p.Text, partMaxChars) + "\n")
		case providers.ToolCall:
			fmt.Fprintf(&b, "→ %s %s\n", p.Name, cut(p.Arguments, partMaxChars))
		case providers.ToolResult:
			fail := ""
			if p.IsError {
				fail = " (error)"
			}
			fmt.Fprintf(&b, "← %s%s: %s\n", p.Name, fail, cut(p.Content, partMaxChars))
		}
	}
	return b.String()
}
