package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// generated makes a git repository of files files of about size bytes
// each, in directories of 100, of source-like text (it compresses as code
// does), committed, and returns its path.
func generated(b *testing.B, files, size int) string {
	b.Helper()
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if else for range var const type struct interface map slice err nil ctx string int byte")
	line := func() string {
		var sb strings.Builder
		for range 8 {
			sb.WriteString(words[rng.IntN(len(words))])
			fmt.Fprintf(&sb, "%d ", rng.IntN(100000))
		}
		sb.WriteString("\n")
		return sb.String()
	}
	for i := range files {
		var sb strings.Builder
		for sb.Len() < size {
			sb.WriteString(line())
		}
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "gen"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// thisRepo is the project's own checkout, the working directory a
// developer of agent has.
func thisRepo(b *testing.B) string {
	dir, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		b.Skip("not in a git checkout")
	}
	return dir
}

// BenchmarkCheckpointAfterAFewChanges is the time a checkpoint adds to a
// prompt once the session has one: three files changed since, then Take.
// ms-median is the median of the iterations.
func BenchmarkCheckpointAfterAFewChanges(b *testing.B) {
	for _, tc := range []struct {
		name string
		dir  func(*testing.B) string
	}{
		{"this-repo", thisRepo},
		{"10k-files-200MB", func(b *testing.B) string { return generated(b, 10_000, 20_000) }},
	} {
		for _, watch := range []bool{true, false} {
			name := tc.name
			if !watch {
				name += "/no-watch"
			}
			b.Run(name, func(b *testing.B) { benchTake(b, tc.dir(b), watch) })
		}
	}
}

// benchTake times Take after three files changed, on a store of dir that
// watches the directory or not (as the session's store does: it watches).
func benchTake(b *testing.B, dir string, watch bool) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), dir, Options{Watch: watch})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if _, err := s.Take(ctx, "bench", "first"); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	if _, err := s.Take(ctx, "bench", "second"); err != nil { // the watch starts
		b.Fatal(err)
	}
	targets := changeTargets(b, dir)
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		for _, p := range targets {
			if err := os.WriteFile(p, []byte(fmt.Sprintf("change %d\n", i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0 := time.Now()
		if _, err := s.Take(ctx, "bench", fmt.Sprintf("p%d", i)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(first.Milliseconds()), "ms-first")
	for _, p := range targets {
		os.Remove(p)
	}
}

// changeTargets are three files of the benchmark's own in dir (never one
// of the repository's: they are removed after), new at first, then changed
// each iteration.
func changeTargets(b *testing.B, dir string) []string {
	b.Helper()
	var ps []string
	for i := range 3 {
		ps = append(ps, filepath.Join(dir, fmt.Sprintf(".agent-bench-%d-%d.txt", os.Getpid(), i)))
	}
	return ps
}

// BenchmarkStoreSizeAfter100Prompts reports the bytes the store's objects
// take on disk after the first checkpoint of the 10,000-file tree and
// after 100 prompts that each changed one of its files (a line added).
func BenchmarkStoreSizeAfter100Prompts(b *testing.B) {
	dir := generated(b, 10_000, 20_000)
	ctx := context.Background()
	for b.Loop() {
		s, err := Open(ctx, b.TempDir(), dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Take(ctx, "bench", "first"); err != nil {
			b.Fatal(err)
		}
		first, _ := storeSize(s)
		for i := range 100 {
			p := filepath.Join(dir, fmt.Sprintf("d%03d", i), fmt.Sprintf("f%05d.go", i*100))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "// prompt %d\n", i)
			f.Close()
			if _, err := s.Take(ctx, "bench", fmt.Sprintf("p%d", i)); err != nil {
				b.Fatal(err)
			}
		}
		after, _ := storeSize(s)
		b.ReportMetric(float64(first)/(1<<20), "MB-first")
		b.ReportMetric(float64(after)/(1<<20), "MB-after-100")
	}
}

// storeSize is the bytes s's objects take on disk.
func storeSize(s *Store) (int64, error) {
	var n int64
	err := filepath.WalkDir(filepath.Join(s.gitDir, "objects"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}
