package providers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fastStream serves n SSE-like lines of about 100 bytes, one every gap,
// each flushed on its own (as a model server sends its deltas).
func fastStream(n int, gap time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for i := range n {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"delta %05d\"}}],\"object\":\"chunk\"}\n\n", i)
			f.Flush()
			if gap > 0 {
				time.Sleep(gap)
			}
		}
	}))
}

// countingReader counts the reads that returned bytes.
type countingReader struct {
	io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	if n > 0 {
		c.reads++
	}
	return n, err
}

// readStream sends one request through a client from NewHTTPClient and
// reads its body line by line with a 4 KiB buffer, as go-openai does. It
// returns the data lines and the number of body reads that returned bytes.
func readStream(tb testing.TB, url string) (lines []string, reads int) {
	tb.Helper()
	ctx, _, stop := StartAttempt(context.Background(), time.Minute)
	defer stop()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	resp, err := NewHTTPClient(nil).Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body := &countingReader{Reader: resp.Body}
	sc := bufio.NewScanner(bufio.NewReaderSize(body, 4096))
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines, body.reads
}

func TestAFastStreamArrivesWholeInFewerReads(t *testing.T) {
	const n = 200
	srv := fastStream(n, time.Millisecond)
	defer srv.Close()
	lines, reads := readStream(t, srv.URL)
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("delta %05d", i); !strings.Contains(l, want) {
			t.Fatalf("line %d = %q, want %q in it", i, l, want)
		}
	}
	// A delta a millisecond, reads paced at ReadPace (10 ms): about a
	// tenth as many reads as deltas; unpaced it would be one each.
	if reads > n/2 {
		t.Errorf("%d reads for %d deltas a millisecond apart, want at most %d", reads, n, n/2)
	}
}

// BenchmarkFastStreamRead reads 1,000 deltas sent a millisecond apart
// through the shared transport, paced (ReadPace) and unpaced, and reports
// the CPU time the reading process spends per delta and its body reads.
// The server runs in a child process (this test binary, see
// TestFastStreamServer), so its CPU is not counted.
func BenchmarkFastStreamRead(b *testing.B) {
	const n = 1000
	cmd := exec.Command(os.Args[0], "-test.run=^TestFastStreamServer$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PACE_SERVER_DELTAS=%d", n))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	url = strings.TrimSpace(url)
	for _, pace := range []time.Duration{0, ReadPace} {
		b.Run(fmt.Sprintf("pace=%s", pace), func(b *testing.B) {
			defer func(old time.Duration) { readPace = old }(readPace)
			readPace = pace
			cpu0 := cpuTime()
			reads := 0
			for b.Loop() {
				lines, r := readStream(b, url)
				if len(lines) != n {
					b.Fatalf("%d lines, want %d", len(lines), n)
				}
				reads += r
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*n), "cpu-ns/delta")
			b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
		})
	}
}

// TestFastStreamServer is BenchmarkFastStreamRead's server when run with
// PACE_SERVER_DELTAS set: it prints its URL and serves fastStream until
// its standard input closes. Otherwise it is skipped.
func TestFastStreamServer(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PACE_SERVER_DELTAS"))
	if n == 0 {
		t.Skip("the server of BenchmarkFastStreamRead")
	}
	srv := fastStream(n, time.Millisecond)
	defer srv.Close()
	fmt.Println(srv.URL)
	io.Copy(io.Discard, os.Stdin)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pieces returns one piece a Read, at once, as a stream whose deltas have
// all arrived.
type pieces struct{ left []string }

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.left) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.left[0])
	p.left = p.left[1:]
	return n, nil
}

func (p *pieces) Close() error { return nil }

// TestAShortAnswerIsNeverPaced: the first paceAfter-1 small reads that
// find their bytes waiting go on at once, so a short answer (a few deltas
// and the end of the stream) ends without a pause; from the paceAfter-th
// in a row, the next read waits for ReadPace; a read that is not small
// starts the count again.
func TestAShortAnswerIsNeverPaced(t *testing.T) {
	defer func(old time.Duration) { readPace = old }(readPace)
	readPace = time.Hour // a pause would hang: it is only ever scheduled here
	ctx, a, stop := StartAttempt(context.Background(), time.Minute)
	defer stop()
	src := &pieces{}
	for range paceAfter + 2 {
		src.left = append(src.left, "data: {\"delta\":\"x\"}\n\n")
	}
	b := &watchedBody{ReadCloser: src, a: a, ctx: ctx}
	buf := make([]byte, 4096)
	for i := 1; i < paceAfter; i++ {
		if _, err := b.Read(buf); err != nil {
			t.Fatal(err)
		}
		if !b.next.IsZero() {
			t.Fatalf("read %d of a short answer scheduled a pause", i)
		}
	}
	if _, err := b.Read(buf); err != nil || b.next.IsZero() {
		t.Fatalf("read %d in a row of a fast stream scheduled no pause (%v)", paceAfter, err)
	}
	b.next = time.Time{}
	if _, err := b.Read(make([]byte, 10)); err != nil || !b.next.IsZero() || b.fast != 0 {
		t.Errorf("a read that filled its buffer kept the count: fast %d, next %v", b.fast, b.next)
	}
}
