// Command scripted-server is a local OpenAI-compatible chat completions
// server for benchmarks: it answers every request with a short streamed text
// answer ("hello") and its usage. It prints its base URL (ending in /v1) on
// the first line of stdout and serves until interrupted.
//
//	go run ./bench/scripted-server -addr 127.0.0.1:0
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/agent-dev/agent/internal/scripted"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (host:port; port 0 picks a free one)")
	text := flag.String("text", "hello", "the answer streamed to every request")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("scripted-server: %v", err)
	}
	h := scripted.NewHandler(scripted.Options{RepeatLast: true, DiscardRequests: true}, scripted.Text(*text))
	srv := &http.Server{Handler: h}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	go func() {
		<-stop
		h.Close()
		srv.Close()
	}()

	fmt.Printf("http://%s/v1\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatalf("scripted-server: %v", err)
	}
}
