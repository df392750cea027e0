package mention

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"
)

const (
	// listMaxAge is how long a walk of the working directory serves
	// completions before the next completion walks it again.
	listMaxAge = 5 * time.Second
	// listMaxPaths caps the files a walk collects, so that completion in a
	// huge tree stays quick (it then offers what it saw first).
	listMaxPaths = 200000
)

var errEnough = errors.New("enough paths")

// Complete returns up to limit paths below the working directory that
// match query fuzzily (its characters in order, case-insensitive), best
// first: a match at the start of the path or of its last element, and runs
// of consecutive characters, rank higher; among equals the shorter path
// wins. Directories end in "/". An empty query offers the top level,
// directories first, in name order. Files
// and directories that .gitignore excludes, .git and symlinks are not
// offered. Resources of MCP servers (see UseResources) are offered as
// SERVER:URI among the paths, scored alike. The working directory is walked at most every listMaxAge;
// cancelling ctx stops a walk, and what it found so far is used.
func (m *Mentions) Complete(ctx context.Context, query string, limit int) []string {
	paths, lower := m.listing(ctx)
	query = strings.TrimPrefix(query, "./")
	lq := strings.ToLower(query)
	type scored struct {
		p string
		s int
	}
	var hits []scored
	for i, p := range paths {
		if query == "" {
			if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
				hits = append(hits, scored{p, 0})
				if strings.HasSuffix(p, "/") {
					hits[len(hits)-1].s = 1 // directories first
				}
			}
			continue
		}
		if s, ok := score(lower[i], lq); ok {
			hits = append(hits, scored{p, s})
		}
	}
	names, scores := completeResources(m.resources(), query)
	for i, n := range names {
		hits = append(hits, scored{n, scores[i]})
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if a.s != b.s {
			return b.s - a.s
		}
		if len(a.p) != len(b.p) && query != "" {
			return len(a.p) - len(b.p)
		}
		return strings.Compare(a.p, b.p)
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.p)
	}
	return out
}

// listing returns the files and directories of the working directory,
// and the same in lower case, walking it again when the last walk is older
// than maxAge.
func (m *Mentions) listing(ctx context.Context) (paths, lower []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.paths != nil && time.Since(m.listed) < m.maxAge {
		return m.paths, m.lower
	}
	dirs := map[string]bool{}
	visit := func(rel string) error {
		for d := path.Dir(rel); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			paths = append(paths, d+"/")
		}
		paths = append(paths, rel)
		if len(paths) >= m.maxWalk {
			return errEnough
		}
		return nil
	}
	if m.walk != nil {
		m.walk(ctx, m.root, visit)
	}
	if paths == nil {
		paths = []string{}
	}
	lower = make([]string, len(paths))
	for i, p := range paths {
		lower[i] = strings.ToLower(p)
	}
	m.paths, m.lower, m.listed = paths, lower, time.Now()
	return paths, lower
}

// score rates how well lc matches lq (both in lower case); ok is false
// when lq's characters do not all appear in lc in order.
func score(lc, lq string) (s int, ok bool) {
	base := strings.LastIndexByte(strings.TrimSuffix(lc, "/"), '/') + 1
	j, prev := 0, -2
	for i := 0; i < len(lc) && j < len(lq); i++ {
		if lc[i] != lq[j] {
			continue
		}
		s++
		if i == prev+1 {
			s += 5 // consecutive
		}
		if i == 0 || strings.IndexByte("/_-. ", lc[i-1]) >= 0 {
			s += 3 // the start of a word
		}
		if i >= base {
			s += 2 // in the last element
		}
		prev = i
		j++
	}
	if j < len(lq) {
		return 0, false
	}
	if strings.HasPrefix(lc, lq) {
		s += 20
	}
	if strings.Contains(lc[base:], lq) {
		s += 15
	}
	return s, true
}
