package worktree

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cost of a session's worktree: making it (git worktree add: a new
// branch and a checkout) and, at the end of a session that changed
// nothing, finding it unchanged and removing it; beside them, as the
// machine's baseline, a plain copy of the same files (what any checkout
// costs the file system). On a clone of this repository and on a
// generated repository of 10,000 files (100 directories of 100 small
// files). BENCHMARKS.md has the figures:
//
//	go test -run '^$' -bench . -benchtime 20x ./worktree/
func BenchmarkWorktree(b *testing.B) {
	for _, repo := range []struct {
		name string
		make func(b *testing.B) string
	}{
		{"this-repository", cloneThisRepository},
		{"10000-files", manyFiles},
	} {
		dir := repo.make(b)
		files := strings.Count(gitT(b, dir, "ls-files"), "\n") + 1
		b.Run("create/"+repo.name, func(b *testing.B) {
			m := newManager(b)
			for i := 0; i < b.N; i++ {
				r, err := m.Create(context.Background(), dir, Spec{Name: fmt.Sprintf("b%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := m.Remove(context.Background(), r); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(files), "files")
		})
		b.Run("copy-baseline/"+repo.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dst := filepath.Join(b.TempDir(), "copy")
				if err := copyTree(dir, dst); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := os.RemoveAll(dst); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(files), "files")
		})
		b.Run("finish-unchanged/"+repo.name, func(b *testing.B) {
			m := newManager(b)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				r, err := m.Create(context.Background(), dir, Spec{Name: fmt.Sprintf("b%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if f, err := m.Finish(context.Background(), r, true); err != nil || !f.Removed {
					b.Fatalf("Finish: %+v, %v", f, err)
				}
			}
			b.ReportMetric(float64(files), "files")
		})
	}
}

// cloneThisRepository clones the repository this package is in (its
// objects hard-linked), so that the benchmark makes no branch in it.
func cloneThisRepository(b *testing.B) string {
	top, err := git(context.Background(), ".", "rev-parse", "--show-toplevel")
	if err != nil {
		b.Skipf("not in a git repository: %v", err)
	}
	dst := filepath.Join(b.TempDir(), "agent")
	gitT(b, ".", "clone", "-q", "--local", strings.TrimSpace(top), dst)
	return dst
}

// manyFiles is a repository of 10,000 small files in 100 directories, in
// one commit.
func manyFiles(b *testing.B) string {
	dir := filepath.Join(b.TempDir(), "many")
	gitT(b, filepath.Dir(dir), "init", "-q", dir)
	for d := 0; d < 100; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			text := fmt.Sprintf("package pkg%02d\n\n// File %d of directory %d.\nconst N%d = %d\n", d, f, d, f, d*100+f)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	gitT(b, dir, "add", ".")
	gitT(b, dir, "commit", "-q", "-m", "10,000 files")
	return dir
}

// copyTree copies the regular files of src, but its .git, to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
