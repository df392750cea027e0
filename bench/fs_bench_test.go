// Benchmarks of the grep and list_files tools on a generated tree of about
// 100,000 source-like files, beside ripgrep and fd doing the same work.
// bench/fs.sh runs them and prints a table.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
)

// treeVersion names the generated tree; change it when generation changes.
const treeVersion = "agent-fs-bench-v1"

// Shape of the tree: modules × packages × sub-directories × files.
const (
	modules, packages, subdirs, filesPerDir = 20, 10, 5, 100
)

var (
	treeOnce sync.Once
	treeDir  string
	treeErr  error
)

// benchTree returns the generated tree, creating it under os.TempDir() on
// first use and reusing it afterwards (a marker file says it is complete).
func benchTree(b *testing.B) string {
	treeOnce.Do(func() {
		treeDir = filepath.Join(os.TempDir(), treeVersion)
		if _, err := os.Stat(filepath.Join(treeDir, ".complete")); err == nil {
			return
		}
		b.Logf("generating %d files in %s (once)", modules*packages*subdirs*filesPerDir, treeDir)
		os.RemoveAll(treeDir)
		if treeErr = generate(treeDir); treeErr == nil {
			treeErr = os.WriteFile(filepath.Join(treeDir, ".complete"), nil, 0o644)
		}
	})
	if treeErr != nil {
		b.Fatalf("generating the tree: %v", treeErr)
	}
	return treeDir
}

// generate writes the tree: 100,000 searched files of Go-like text in
// nested directories, a .git directory, ignored directories (node_modules,
// dist, build, *.log, *.tmp through nested .gitignore files) holding
// matches that must not be reported, and a few binary files.
func generate(dir string) error {
	write := func(name, content string) error {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
	pool := linePool(rand.New(rand.NewPCG(1, 2)))
	var g errgroup.Group
	g.SetLimit(8)
	for m := range modules {
		g.Go(func() error {
			r := rand.New(rand.NewPCG(uint64(m), 7))
			mod := fmt.Sprintf("mod%02d", m)
			if err := write(mod+"/.gitignore", "*.tmp\n!keep.tmp\nbuild/\n"); err != nil {
				return err
			}
			for p := range packages {
				for s := range subdirs {
					d := fmt.Sprintf("%s/pkg%d/sub%d", mod, p, s)
					for f := range filesPerDir {
						if err := write(fmt.Sprintf("%s/file%03d.go", d, f), source(r, pool)); err != nil {
							return err
						}
					}
					if s == 0 {
						for _, ign := range []string{"scratch.tmp", "run.log", "build/out.go"} {
							if err := write(d+"/"+ign, "func main() {}\nerr := ignored\n"); err != nil {
								return err
							}
						}
					}
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		r := rand.New(rand.NewPCG(99, 7))
		for i := range 2000 {
			if err := write(fmt.Sprintf("node_modules/lib%03d/index%d.js", i/20, i%20), source(r, pool)); err != nil {
				return err
			}
		}
		for i := range 500 {
			if err := write(fmt.Sprintf("dist/bundle%03d.js", i), source(r, pool)); err != nil {
				return err
			}
		}
		for i := range 20 {
			bin := fmt.Sprintf("func main\x00\x01\x02\xff%d err := x\n", i) + strings.Repeat("\x00\x10", 512)
			if err := write(fmt.Sprintf("assets/img%02d.png", i), bin); err != nil {
				return err
			}
		}
		for _, f := range []string{".git/HEAD", ".git/objects/ab/cdef", ".git/config"} {
			if err := write(f, "func main() { err := nil }\n"); err != nil {
				return err
			}
		}
		return write(".gitignore", "node_modules/\n/dist/\n*.log\n")
	})
	return g.Wait()
}

// linePool returns lines of Go-like code built from templates and words.
func linePool(r *rand.Rand) []string {
	words := strings.Fields("ctx req resp buf conn client server config value result item index name count " +
		"parse load store handle render encode decode fetch update delete create session token user cache")
	w := func() string { return words[r.IntN(len(words))] }
	W := func() string { s := w(); return strings.ToUpper(s[:1]) + s[1:] }
	templates := []func() string{
		func() string { return fmt.Sprintf("\t%s, err := %s%s(ctx, %s)", w(), w(), W(), w()) },
		func() string { return "\tif err != nil {" },
		func() string { return fmt.Sprintf("\t\treturn fmt.Errorf(\"%s %s: %%w\", err)", w(), w()) },
		func() string { return "\t}" },
		func() string {
			return fmt.Sprintf("func (%s *%s) %s%s(%s string) error {", w()[:1], W(), W(), W(), w())
		},
		func() string { return fmt.Sprintf("// %s%s returns the %s of the %s.", W(), W(), w(), w()) },
		func() string { return fmt.Sprintf("\tvar %s = %s.%s(%d)", w(), w(), W(), r.IntN(1000)) },
		func() string { return fmt.Sprintf("\tfor i := 0; i < len(%s); i++ {", w()) },
		func() string { return fmt.Sprintf("\t\t%s[i] = %s + %d", w(), w(), r.IntN(100)) },
		func() string { return fmt.Sprintf("type %s%s struct {", W(), W()) },
		func() string { return fmt.Sprintf("\t%s %s `json:\"%s\"`", W(), w(), w()) },
		func() string { return fmt.Sprintf("\terror = %s.%s()", w(), W()) },
		func() string { return fmt.Sprintf("\tlog.Printf(\"%s %%v\", %s)", w(), w()) },
		func() string { return fmt.Sprintf("\treturn %s, nil", w()) },
		func() string { return "}" },
		func() string { return "" },
	}
	pool := make([]string, 4000)
	for i := range pool {
		pool[i] = templates[r.IntN(len(templates))]()
	}
	return pool
}

// source returns one file: a package clause, 10 to 100 lines from pool, and
// now and then a main function or a comment that mentions one.
func source(r *rand.Rand, pool []string) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport \"fmt\"\n\n")
	for range 10 + r.IntN(91) {
		b.WriteString(pool[r.IntN(len(pool))])
		b.WriteByte('\n')
	}
	switch r.IntN(200) {
	case 0:
		b.WriteString("func main() {\n\trun()\n}\n")
	case 1:
		b.WriteString("// Func Main is the FUNC MAIN of this package.\n")
	}
	return b.String()
}

var grepCases = []struct {
	name, pattern string
	ignoreCase    bool
}{
	{"literal", `func main`, false},
	{"regexp", `err(or)?\s*:?=`, false},
	{"ignorecase", `func main`, true},
}

func BenchmarkGrep(b *testing.B) {
	dir := benchTree(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	grep := fs.Grep(root)
	for _, c := range grepCases {
		args, _ := json.Marshal(map[string]any{"pattern": c.pattern, "ignore_case": c.ignoreCase})
		b.Run(c.name+"/agent", func(b *testing.B) {
			var res tools.Result
			for b.Loop() {
				res = run(b, grep, args)
			}
			b.ReportMetric(float64(res.Meta["matches"].(int)), "matches")
		})
		b.Run(c.name+"/rg", func(b *testing.B) {
			rgArgs := []string{"-n", "--no-heading", c.pattern}
			if c.ignoreCase {
				rgArgs = []string{"-n", "--no-heading", "-i", c.pattern}
			}
			var n int
			for b.Loop() {
				n = external(b, dir, "rg", rgArgs...)
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}

func BenchmarkListFiles(b *testing.B) {
	dir := benchTree(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	list := fs.ListFiles(root)
	b.Run("agent", func(b *testing.B) {
		var res tools.Result
		for b.Loop() {
			res = run(b, list, json.RawMessage(`{}`))
		}
		b.ReportMetric(float64(res.Meta["count"].(int)), "files")
	})
	b.Run("fd", func(b *testing.B) {
		var n int
		for b.Loop() {
			n = external(b, dir, "fdfind", "-t", "f")
		}
		b.ReportMetric(float64(n), "files")
	})
}

func run(b *testing.B, t tools.Tool, args json.RawMessage) tools.Result {
	res, err := t.Run(context.Background(), tools.Call{Args: args})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", t.Definition().Name, err, res.Content)
	}
	return res
}

// external runs a command in dir (skipping the benchmark when it is not
// installed), reads its output through a pipe as a caller would, and
// returns the number of lines it printed.
func external(b *testing.B, dir, name string, args ...string) int {
	path, err := exec.LookPath(name)
	if err != nil {
		b.Skipf("%s is not installed (apt-get install -y ripgrep fd-find)", name)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	n, err := countLines(out)
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}

func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 256<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += strings.Count(string(buf[:k]), "\n")
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
