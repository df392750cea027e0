package memory

import (
	"cmp"
	"context"
	"fmt"
	"github.com/agent-dev/agent/tools/shell"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/sessions"
)

// DefaultResults is how many results a search returns when not told.
const DefaultResults = 6

// MaxResults caps the results of one search.
const MaxResults = 50

// passageChars is about how many characters of context a passage shows.
const passageChars = 600

// SearchOptions shape Memory.Search.
type SearchOptions struct {
	// Max is the number of results; 0 or less is DefaultResults, more than
	// MaxResults is MaxResults.
	Max int
	// AllProjects searches every project's memory files and sessions, not
	// only this project's.
	AllProjects bool
	// Exclude leaves out the session with this id (the one asking, whose
	// messages the model already has); "" leaves out none.
	Exclude string
}

// Result is one passage a search found.
type Result struct {
	// Source says where the passage is, for people: "MEMORY.md:12",
	// "2026-11-20.md:3", "session 3f2a9c0d1e4b message 14".
	Source string
	// Key is what Memory.Get takes to read the passage's whole file or
	// its messages around it: "MEMORY.md", "2026-11-20",
	// "3f2a9c0d1e4b:14", with "KEY/" before a file of another project.
	Key string
	// Project is the root of the project the passage belongs to.
	Project string
	// Date is when the passage was written: the message's time, a daily
	// note's day, MEMORY.md's modification time.
	Date time.Time
	// Title and Role are a session message's: the session's title and the
	// message's role.
	Title, Role string
	// Score is the passage's relevance, 0 to 1, higher is better: its BM25
	// score divided by the best of its kind (memory files, sessions) in
	// this search, so that each kind's best scores 1.
	Score float64
	// Passage is the matching text with some context around it.
	Passage string
}

// Search returns the passages of the memory files and the past sessions
// that match query (plain words; see sessions.Words), best first. Files and
// sessions are ranked apart by BM25 and, with embeddings (UseEmbeddings),
// by meaning, the two rankings of each kind fused (see fuse), and the
// kinds merged by their scores scaled to each kind's best; identical passages (a forked session's copies) are
// shown once. A query without searchable words is an error the model can
// read. ctx bounds the session search.
func (m *Memory) Search(ctx context.Context, query string, o SearchOptions) ([]Result, error) {
	if len(sessions.Words(query)) == 0 {
		return nil, fmt.Errorf("the query %q has no word to search for (common words like \"the\" are ignored)", query)
	}
	limit := o.Max
	if limit <= 0 {
		limit = DefaultResults
	}
	limit = min(limit, MaxResults)
	chunks := m.fileChunks(o.AllProjects)
	qv := m.queryVector(ctx, query, chunks)
	files := rankChunks(chunks, query, limit)
	if qv != nil {
		files = fuseResults(files, m.nearestChunks(chunks, qv, limit))
	}
	var found []Result
	if m.store != nil {
		opts := sessions.SearchOptions{Exclude: o.Exclude, Limit: limit * 2}
		if !o.AllProjects {
			opts.Root, opts.Also = m.root, []string{m.worktrees}
		}
		hits, err := m.store.Search(ctx, query, opts)
		if err != nil {
			return nil, err
		}
		if near := m.nearest(ctx, qv, opts); near != nil {
			hits = fuse(hits, near)
		}
		found = sessionResults(hits, query)
	}
	all := append(scale(files), scale(found)...)
	slices.SortStableFunc(all, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	seen := map[string]bool{}
	out := all[:0]
	for _, r := range all {
		if seen[r.Passage] {
			continue
		}
		seen[r.Passage] = true
		r.Passage = shell.MaskSecrets(r.Passage)
		out = append(out, r)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// scale divides each result's score by the best of rs.
func scale(rs []Result) []Result {
	best := 0.0
	for _, r := range rs {
		best = max(best, r.Score)
	}
	for i := range rs {
		if best > 0 {
			rs[i].Score /= best
		}
	}
	return rs
}

// sessionResults turns the store's hits into results with a passage each.
func sessionResults(hits []sessions.Hit, query string) []Result {
	terms := stems(sessions.Words(query))
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		out = append(out, Result{
			Source:  fmt.Sprintf("session %s message %d", h.SessionID, h.Seq),
			Key:     fmt.Sprintf("%s:%d", h.SessionID, h.Seq),
			Project: ProjectRoot(h.Dir),
			Date:    h.CreatedAt,
			Title:   h.Title,
			Role:    string(h.Role),
			Score:   h.Score,
			Passage: passage(h.Text, terms),
		})
	}
	return out
}

// chunk is one searchable piece of a memory file: a list item or a
// paragraph.
type chunk struct {
	file  string // the file's path
	key   string // Get's key of the file
	proj  string // the project's root
	date  time.Time
	line  int // the chunk's first line, from 1
	text  string
	words []string // stems
}

// fileChunks are the chunks of the memory files, this project's or every
// project's.
func (m *Memory) fileChunks(allProjects bool) []chunk {
	dirs := []string{m.dir}
	if allProjects {
		entries, _ := os.ReadDir(m.base)
		dirs = dirs[:0]
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(m.base, e.Name()))
			}
		}
	}
	var chunks []chunk
	for _, d := range dirs {
		chunks = append(chunks, m.dirChunks(d)...)
	}
	return chunks
}

// rankChunks ranks chunks by BM25 for query and returns the best limit.
func rankChunks(chunks []chunk, query string, limit int) []Result {
	terms := stems(sessions.Words(query))
	scores := bm25(chunks, terms)
	var out []Result
	for i, c := range chunks {
		if scores[i] <= 0 {
			continue
		}
		out = append(out, c.result(scores[i]))
	}
	slices.SortStableFunc(out, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(len(out), limit)]
}

// result is c as a search result with score.
func (c chunk) result(score float64) Result {
	return Result{Source: fmt.Sprintf("%s:%d", filepath.Base(c.file), c.line), Key: c.key, Project: c.proj,
		Date: c.date, Score: score, Passage: c.text}
}

// dirChunks reads the memory files of one project's directory.
func (m *Memory) dirChunks(dir string) []chunk {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	proj := m.root
	if dir != m.dir {
		data, _ := readRegular(filepath.Join(dir, projectFile), 4096)
		proj = strings.TrimSpace(string(data))
	}
	var out []chunk
	for _, e := range entries {
		name := e.Name()
		day, isDay := noteDay(name)
		if name != LongTermFile && !isDay {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := readRegular(path, maxFileBytes)
		if err != nil {
			continue
		}
		key := strings.TrimSuffix(name, ".md")
		if name == LongTermFile {
			key = name
			if fi, err := os.Stat(path); err == nil {
				day = fi.ModTime()
			}
		}
		if dir != m.dir {
			key = filepath.Base(dir) + "/" + key
		}
		for _, c := range splitChunks(string(data)) {
			c.file, c.key, c.proj, c.date = path, key, proj, day
			out = append(out, c)
		}
	}
	return out
}

// maxFileBytes caps how much of one memory file is read (1 MiB).
const maxFileBytes = 1 << 20

// noteDay parses a daily note's name, "2026-11-20.md".
func noteDay(name string) (time.Time, bool) {
	d, ok := strings.CutSuffix(name, ".md")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(dayLayout, d, time.Local)
	return t, err == nil
}

// splitChunks splits a markdown file into chunks: each top-level list item
// (with its indented lines) and each paragraph, cut to passageChars. A
// heading belongs to the chunk below it.
func splitChunks(text string) []chunk {
	var out []chunk
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			t := strings.TrimSpace(strings.Join(cur, "\n"))
			if t != "" {
				out = append(out, chunk{line: start, text: cut(t, passageChars), words: stems(sessions.Words(t))})
			}
		}
		cur = nil
	}
	for i, line := range strings.Split(text, "\n") {
		item := strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ")
		heading := len(cur) > 0 && strings.HasPrefix(cur[len(cur)-1], "#") && len(cur) == 1
		if strings.TrimSpace(line) == "" || (item && !heading) {
			flush()
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// passage returns about passageChars of text around the place where most
// of the query's terms occur, with "…" where it was cut. Secrets are
// masked before the cut, which could leave a token without the prefix
// that makes it one (a ghp_ token's tail).
func passage(text string, terms []string) string {
	text = strings.TrimSpace(shell.MaskSecrets(text))
	if len(text) <= passageChars {
		return text
	}
	lower := strings.ToLower(text)
	var at []int
	for _, t := range terms {
		for i := 0; ; {
			j := strings.Index(lower[i:], t)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + len(t)
		}
	}
	best, bestN := 0, -1
	for _, p := range at {
		n := 0
		for _, q := range at {
			if q >= p && q < p+passageChars/2 {
				n++
			}
		}
		if n > bestN {
			best, bestN = p, n
		}
	}
	from := max(best-passageChars/3, 0)
	to := min(from+passageChars, len(text))
	from = max(to-passageChars, 0)
	for from > 0 && !utf8Start(text[from]) {
		from--
	}
	for to < len(text) && !utf8Start(text[to]) {
		to++
	}
	s := text[from:to]
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// cut shortens s to about n bytes at a character boundary, with "…",
// its secrets masked first (a cut could leave a private key's last lines
// or a token without its prefix, which masking no longer knows).
func cut(s string, n int) string {
	s = shell.MaskSecrets(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// stems folds common English endings off words, roughly as the Porter
// stemmer of the session index does, so that "deploying" finds "deploy"
// in the files too. The result is also a prefix to look for in text.
func stems(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		for _, suf := range []string{"ing", "ed", "es", "s"} {
			if s, ok := strings.CutSuffix(w, suf); ok && len(s) >= 3 {
				w = s
				break
			}
		}
		out[i] = w
	}
	return out
}
