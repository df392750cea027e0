package sessions_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// A project's sessions include those of its worktrees, which live outside
// it (SearchOptions.Also), by words and by meaning alike; another
// project's worktrees stay out.
func TestSearchFindsTheProjectsWorktreeSessions(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	record(t, s, "/repo", user("marmalade in the main tree"))
	record(t, s, "/data/worktrees/repo-1/fix", user("marmalade in a worktree"))
	record(t, s, "/data/worktrees/repo-2/fix", user("marmalade in another project's worktree"))
	record(t, s, "/data/worktrees/repo-10", user("marmalade beside the worktrees"))
	o := sessions.SearchOptions{Root: "/repo", Also: []string{"/data/worktrees/repo-1"}}

	hits, err := s.Search(ctx, "marmalade", o)
	must(t, err)
	var dirs []string
	for _, h := range hits {
		dirs = append(dirs, h.Dir)
	}
	slices.Sort(dirs)
	if !slices.Equal(dirs, []string{"/data/worktrees/repo-1/fix", "/repo"}) {
		t.Errorf("words: hits in %v, want the main tree's and its worktree's", dirs)
	}

	ps, err := s.Unembedded(ctx, "m", 10)
	must(t, err)
	vecs := map[int64][]float32{}
	for _, p := range ps {
		vecs[p.ID] = []float32{1, 0}
	}
	must(t, s.PutVectors(ctx, "m", vecs))
	near, err := s.NearestMessages(ctx, "m", []float32{1, 0}, o)
	must(t, err)
	dirs = nil
	for _, h := range near {
		dirs = append(dirs, h.Dir)
	}
	slices.Sort(dirs)
	if !slices.Equal(dirs, []string{"/data/worktrees/repo-1/fix", "/repo"}) {
		t.Errorf("meaning: hits in %v, want the main tree's and its worktree's", dirs)
	}
}
