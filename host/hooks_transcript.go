package host

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/tools/shell"

	"github.com/agent-dev/agent/sessions"
)

// transcriptFile is what a run wrote of a session's transcript: the
// messages up to seq, in size bytes.
type transcriptFile struct {
	seq  int
	size int64
}

// transcript exports session's messages to a file of JSON lines (one
// {"type", "timestamp", "message": {"role", "content"}} object a line, the
// content in the store's part shapes) for a hook's transcript_path, and
// returns its path; "" when it cannot. The first export of a run writes
// the file whole (to a temporary file renamed over it); the next append
// the messages recorded since, so that a hook on every tool call of a long
// session does not rewrite its whole history each time. A file changed
// by someone else since (its size differs) is written whole again.
func (h *hookSet) transcript(ctx context.Context, session string) string {
	if h.store == nil || session == "" {
		return ""
	}
	h.tmu.Lock()
	defer h.tmu.Unlock()
	path := filepath.Join(h.transcripts, session+".jsonl")
	was, appending := h.written[session]
	if appending {
		if fi, err := os.Stat(path); err != nil || fi.Size() != was.size {
			appending = false
		}
	}
	from := 1
	if appending {
		from = was.seq + 1
	}
	recs, err := h.store.MessageRange(ctx, session, from, math.MaxInt)
	if err != nil {
		return ""
	}
	var b strings.Builder
	now := transcriptFile{seq: from - 1}
	for _, r := range recs {
		now.seq = r.Seq
		parts, err := sessions.MarshalParts(r.Message.Parts)
		if err != nil {
			continue
		}
		line, _ := json.Marshal(map[string]any{"type": string(r.Message.Role), "timestamp": r.CreatedAt,
			"message": map[string]any{"role": string(r.Message.Role), "content": json.RawMessage(parts)}})
		b.WriteString(shell.MaskSecrets(string(line))) // a hook is another program: credentials stay in the store
		b.WriteByte('\n')
	}
	if h.written == nil {
		h.written = map[string]transcriptFile{}
	}
	delete(h.written, session) // until this export succeeds
	if appending {
		now.size = was.size + int64(b.Len())
		if b.Len() > 0 && appendFile(path, b.String()) != nil {
			return ""
		}
	} else {
		now.size = int64(b.Len())
		if err := os.MkdirAll(h.transcripts, 0o700); err != nil {
			return ""
		}
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if os.WriteFile(tmp, []byte(b.String()), 0o600) != nil || os.Rename(tmp, path) != nil {
			os.Remove(tmp)
			return ""
		}
	}
	h.written[session] = now
	return path
}

// appendFile appends text to the existing file at path.
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
