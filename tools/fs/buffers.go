package fs

import (
	"bytes"
	"context"
	"io"
)

// Buffers reads and writes file text for read_file, edit_file and
// write_file in place of the disk: an editor's buffers, unsaved changes
// included (ACP's fs/read_text_file and fs/write_text_file). rel is a
// slash path relative to the root that the tool has already checked to be
// inside it (and, for a write, not a symlink). handled false means the
// disk is used: Buffers that are not connected yet, or that do not read
// (or write).
type Buffers interface {
	ReadFile(ctx context.Context, rel string) (data []byte, handled bool, err error)
	WriteFile(ctx context.Context, rel string, data []byte) (handled bool, err error)
}

// writeBuffer writes c through the buffers when they take it (never a
// symlink: its target is resolved on disk, inside the root).
func (e editor) writeBuffer(ctx context.Context, c *change) (bool, error) {
	if e.wd.buffers == nil || c.link {
		return false, nil
	}
	return e.wd.buffers.WriteFile(ctx, c.rel, c.after)
}

// openText opens tg's file for read_file: through the buffers when they take
// it (asked for the path tg resolved, so that the editor never follows a
// link of its own, to a file outside the root), else through the
// directory handle of tg, the path's one resolution.
func (w *workdir) openText(ctx context.Context, tg *target) (io.ReadCloser, error) {
	if w.buffers != nil {
		if data, ok, err := w.buffers.ReadFile(ctx, tg.real); ok {
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
	}
	return tg.open()
}
