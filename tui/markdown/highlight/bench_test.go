package highlight

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkLinesGo highlights a 200-line Go file with its lexer already built.
func BenchmarkLinesGo(b *testing.B) {
	data, err := os.ReadFile("testdata/sample_go.txt")
	if err != nil {
		b.Fatal(err)
	}
	code := strings.TrimSuffix(string(data), "\n")
	if _, ok := Lines(code, "go", Dark); !ok {
		b.Fatal("ok = false")
	}
	b.SetBytes(int64(len(code)))
	b.ReportAllocs()
	for b.Loop() {
		Lines(code, "go", Dark)
	}
}

// BenchmarkFirstUse is the cost of a language's first code block: building its lexer (reading its XML, compiling
// its rules, and those of the lexers it uses) and highlighting one line.
func BenchmarkFirstUse(b *testing.B) {
	for _, lang := range []string{"go", "python", "typescript", "bash", "html"} {
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resetCache()
				if _, ok := Lines("x = 1", lang, Dark); !ok {
					b.Fatal("ok = false")
				}
			}
		})
	}
}
