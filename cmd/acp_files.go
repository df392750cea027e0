package cmd

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/agent-dev/agent/acp"
	"github.com/agent-dev/agent/tools/fs"
)

// clientBuffers are the file tools' fs.Buffers of an agent: nothing (the
// disk) until an ACP session whose client declared fs capabilities
// connects them; then the editing tools read and write through the
// client's fs/read_text_file and fs/write_text_file, with paths the tools
// have confined to the working directory.
type clientBuffers struct {
	mu      sync.Mutex
	client  acp.Client
	session string
	dir     string
	read    bool
	write   bool
}

var _ fs.Buffers = (*clientBuffers)(nil)

// connect sends the tools' reads and writes for session to c, as far as c
// declared it takes them.
func (b *clientBuffers) connect(c acp.Client, session, dir string) {
	read, write := c.FileSystem()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.client, b.session, b.dir, b.read, b.write = c, session, dir, read, write
}

func (b *clientBuffers) get() (acp.Client, string, string, bool, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.client, b.session, b.dir, b.read, b.write
}

// ReadFile reads rel through the client when it reads files.
func (b *clientBuffers) ReadFile(ctx context.Context, rel string) ([]byte, bool, error) {
	c, session, dir, read, _ := b.get()
	if c == nil || !read {
		return nil, false, nil
	}
	text, err := c.ReadTextFile(ctx, session, filepath.Join(dir, filepath.FromSlash(rel)))
	return []byte(text), true, err
}

// WriteFile writes rel through the client when it writes files.
func (b *clientBuffers) WriteFile(ctx context.Context, rel string, data []byte) (bool, error) {
	c, session, dir, _, write := b.get()
	if c == nil || !write {
		return false, nil
	}
	return true, c.WriteTextFile(ctx, session, filepath.Join(dir, filepath.FromSlash(rel)), string(data))
}
