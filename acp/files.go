package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// FileSystem reports the client's fs capabilities.
func (c client) FileSystem() (read, write bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.s.fs.ReadTextFile, c.s.fs.WriteTextFile
}

// ReadTextFile sends fs/read_text_file.
func (c client) ReadTextFile(ctx context.Context, sessionID, path string) (string, error) {
	resp, err := c.s.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(sessionID), Path: path})
	if err != nil {
		return "", fmt.Errorf("fs/read_text_file %s: %w", path, err)
	}
	return resp.Content, nil
}

// WriteTextFile sends fs/write_text_file.
func (c client) WriteTextFile(ctx context.Context, sessionID, path, content string) error {
	if _, err := c.s.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(sessionID), Path: path, Content: content}); err != nil {
		return fmt.Errorf("fs/write_text_file %s: %w", path, err)
	}
	return nil
}
