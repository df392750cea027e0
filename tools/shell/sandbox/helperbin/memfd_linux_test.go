package helperbin

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkMemfd measures what File costs a process once: the embedded
// helper written into a new memfd and sealed (about 1.7 MB of shared
// memory allocated and copied).
//
//	go test -run '^$' -bench Memfd -benchtime 200x ./tools/shell/sandbox/helperbin/
func BenchmarkMemfd(b *testing.B) {
	if program == "" {
		b.Skip("no helper embedded here")
	}
	for b.Loop() {
		fd, err := memfd()
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
}
