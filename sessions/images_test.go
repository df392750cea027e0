package sessions_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// An image is stored once, by its hash: the messages that carry it name it
// and do not hold its bytes, and a loaded session has them back.
func TestImagesAreStoredByReference(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	sess, err := s.Create(ctx, sessions.NewSession{Dir: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	shot := providers.Image{MediaType: "image/png", Data: bytes.Repeat([]byte("\x89PNG pixels "), 1000)}
	rec := s.Recorder(sess.ID)
	msgs := []providers.Message{
		{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "look"}, shot}},
		{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"shot.png"}`}}},
		{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c1", Name: "read_file", Content: "Image shot.png", Images: []providers.Image{shot}}}},
	}
	for _, m := range msgs {
		if err := rec.AppendMessage(ctx, m, providers.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	db := sessions.DB(s)
	var n, stored int
	db.QueryRow(`SELECT count(*), sum(length(data)) FROM images`).Scan(&n, &stored)
	if n != 1 || stored != len(shot.Data) {
		t.Errorf("images table: %d rows, %d bytes; want 1 row of %d", n, stored, len(shot.Data))
	}
	var longest int
	db.QueryRow(`SELECT max(length(parts)) FROM messages`).Scan(&longest)
	if longest > 400 {
		t.Errorf("a message row holds %d bytes: the image is inlined", longest)
	}
	got, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	img, ok := got[0].Parts[1].(providers.Image)
	res, _ := got[2].Parts[0].(providers.ToolResult)
	if !ok || !bytes.Equal(img.Data, shot.Data) || img.MediaType != "image/png" || len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, shot.Data) {
		t.Errorf("loaded: %#v / %#v", got[0].Parts, res)
	}
}
