package sessions_test

import (
	"bytes"
	"context"
	"strings"
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

// imageCount is how many images the store holds.
func imageCount(t *testing.T, s *sessions.Store) int {
	t.Helper()
	var n int
	if err := sessions.DB(s).QueryRow(`SELECT count(*) FROM images`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// An image shared by sessions stays while one of them (a fork included)
// still shows it, and goes with the last: deleting sessions gives their
// pictures' bytes back.
func TestAnImageGoesWithTheLastSessionThatShowsIt(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	shared := providers.Image{MediaType: "image/png", Data: []byte("\x89PNG shared")}
	own := providers.Image{MediaType: "image/jpeg", Data: []byte("\xff\xd8 own")}
	session := func(msgs ...providers.Message) string {
		sess, err := s.Create(ctx, sessions.NewSession{Dir: "/w", Model: "m"})
		must(t, err)
		rec := s.Recorder(sess.ID)
		for _, m := range msgs {
			must(t, rec.AppendMessage(ctx, m, providers.Usage{}))
		}
		must(t, s.Release(ctx, sess.ID))
		return sess.ID
	}
	a := session(
		providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "look"}, shared, own}})
	b := session(
		providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: "read it"}}},
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.png"}`}}},
		providers.Message{Role: providers.RoleTool, Parts: []providers.Part{providers.ToolResult{CallID: "c1", Name: "read_file", Content: "Image a.png", Images: []providers.Image{shared}}}})
	fork, err := s.Fork(ctx, b)
	must(t, err)
	if n := imageCount(t, s); n != 2 {
		t.Fatalf("%d images stored, want 2", n)
	}
	for _, step := range []struct {
		del  string
		want int
	}{{a, 1}, {b, 1}, {fork.ID, 0}} {
		must(t, s.Delete(ctx, step.del))
		if n := imageCount(t, s); n != step.want {
			t.Errorf("after deleting session %s: %d images, want %d", step.del, n, step.want)
		}
	}
}

// Migrating a database written before images were counted keeps the
// images its messages name, removes those no message names (their
// sessions were deleted) and lets a later delete remove the rest.
func TestMigrationReleasesImagesNoMessageNames(t *testing.T) {
	kept, orphan := strings.Repeat("a", 64), strings.Repeat("b", 64)
	s := migrated(t, 11,
		`INSERT INTO sessions (id, dir, created_at, updated_at, message_count) VALUES ('aaaaaaaaaaaa', '/old', 1, 1, 2)`,
		`INSERT INTO images (sha256, media_type, data, created_at) VALUES ('`+kept+`', 'image/png', x'89504e47', 1), ('`+orphan+`', 'image/png', x'00', 1)`,
		`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES ('aaaaaaaaaaaa', 1, 'user', '[{"type":"text","text":"look"}]', 1),
			('aaaaaaaaaaaa', 2, 'tool', '[{"type":"tool_result","call_id":"c1","content":"Image","images":[{"media_type":"image/png","sha256":"`+kept+`","bytes":4}]}]', 1)`)
	var left string
	must(t, sessions.DB(s).QueryRow(`SELECT group_concat(sha256) FROM images`).Scan(&left))
	if left != kept {
		t.Errorf("images after the migration: %s, want only the one a message names (%s)", left, kept)
	}
	must(t, s.Delete(context.Background(), "aaaaaaaaaaaa"))
	if n := imageCount(t, s); n != 0 {
		t.Errorf("%d images after deleting the only session that named one", n)
	}
}

// A message rewritten in place (its parts updated) keeps the images it
// still names and gives back the one it no longer names.
func TestARewrittenMessageKeepsTheImagesItStillNames(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	sess, err := s.Create(ctx, sessions.NewSession{Dir: "/w", Model: "m"})
	must(t, err)
	one := providers.Image{MediaType: "image/png", Data: []byte("\x89PNG one")}
	two := providers.Image{MediaType: "image/png", Data: []byte("\x89PNG two")}
	must(t, s.Recorder(sess.ID).AppendMessage(ctx, providers.Message{Role: providers.RoleUser,
		Parts: []providers.Part{providers.Text{Text: "look"}, one, two}}, providers.Usage{}))
	db := sessions.DB(s)
	// Drop the second image part, as a repair of the row would.
	if _, err := db.Exec(`UPDATE messages SET parts = json_remove(parts, '$[2]') WHERE session_id = ?`, sess.ID); err != nil {
		t.Fatal(err)
	}
	if n := imageCount(t, s); n != 1 {
		t.Errorf("%d images after the rewrite, want the one still named", n)
	}
	got, err := s.Messages(ctx, sess.ID)
	must(t, err)
	if len(got) != 1 || len(got[0].Parts) != 2 {
		t.Fatalf("messages after the rewrite: %+v", got)
	}
	if img, ok := got[0].Parts[1].(providers.Image); !ok || !bytes.Equal(img.Data, one.Data) {
		t.Errorf("the image still named was lost: %+v", got[0].Parts)
	}
}
