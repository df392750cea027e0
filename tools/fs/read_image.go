package fs

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/tools"
)

// readImageMax bounds the image files read_file reads, in bytes.
const readImageMax = 32 << 20

// image answers a read of an image file (PNG, JPEG, GIF, WebP, recognised
// by its bytes): the picture, scaled down to the provider's limit, goes to
// the model in the result's Images, after a line that says what it is and
// what was sent. A provider or model that takes no images gets that line
// and a description instead. The read is recorded like a text file's.
func (t *readFile) image(ctx context.Context, call tools.Call, path, rel string, br *bufio.Reader, sum hash.Hash, n int64) (tools.Result, error) {
	if n > readImageMax {
		return tools.Errorf("%s is an image of %s, more than read_file reads (%s)", path, media.Size(int(n)), media.Size(readImageMax)), nil
	}
	data, err := io.ReadAll(br)
	if err != nil {
		return t.failed(ctx, path, err)
	}
	lim := t.imageLimit
	if lim == (media.Limit{}) {
		lim = media.Default
	}
	img, err := media.Fit(data, lim)
	if err != nil {
		return tools.Errorf("%s: %v", path, err), nil
	}
	t.sessions.Tracker(call.Session).record(rel, [sha256.Size]byte(sum.Sum(nil)))
	return tools.Result{
		Content: fmt.Sprintf("Image %s: %s.", path, img.Note()),
		Images:  []tools.Image{{MediaType: img.MediaType, Data: img.Data}},
		Meta:    map[string]any{"image": img.OrigType, "width": img.OrigWidth, "height": img.OrigHeight, "bytes": img.OrigBytes, "sent_bytes": len(img.Data)},
	}, nil
}
