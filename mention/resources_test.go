package mention

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools"
)

// fakeResources serves docs:test://a and docs:test://b of a server
// "docs".
type fakeResources struct{ reads []string }

func (f *fakeResources) Names() []string         { return []string{"docs:test://alpha", "docs:test://beta"} }
func (f *fakeResources) Server(name string) bool { return name == "docs" }
func (f *fakeResources) Read(_ context.Context, server, uri string) (string, []tools.Image, error) {
	f.reads = append(f.reads, server+":"+uri)
	if uri == "test://alpha" || uri == "test://beta" {
		return "text of " + uri, nil, nil
	}
	return "", nil, errors.New("no such resource")
}

// TestResourceMentions: @SERVER:URI attaches the resource (trailing
// punctuation dropped), an unknown resource is listed as not attached, a
// path with a colon that names no server stays a path, and completion
// offers the resources.
func TestResourceMentions(t *testing.T) {
	m, _ := tree(t, map[string]string{"a:b.txt": "colon file\n"})
	f := &fakeResources{}
	m.UseResources(f)
	out, atts := m.Expand(context.Background(), "", "read @docs:test://alpha, @docs:test://gone and @a:b.txt")
	if !strings.Contains(out, "<attached path=\"docs:test://alpha\">\ntext of test://alpha\n</attached>") {
		t.Errorf("resource not attached:\n%s", out)
	}
	if !strings.Contains(out, "colon file") {
		t.Errorf("a file with a colon was not attached:\n%s", out)
	}
	if len(atts) != 3 || atts[1].Path != "docs:test://gone" || !strings.Contains(atts[1].Skipped, "no such resource") {
		t.Errorf("attachments %+v", atts)
	}
	if got := m.Complete(context.Background(), "docs:be", 5); !slices.Contains(got, "docs:test://beta") || slices.Contains(got, "docs:test://alpha") {
		t.Errorf("completion %v", got)
	}
	m.UseResources(nil)
	if out, _ := m.Expand(context.Background(), "", "@docs:test://alpha"); strings.Contains(out, "<attached") {
		t.Errorf("attached without resources: %s", out)
	}
}
