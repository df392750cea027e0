// Command scripted-server is a local OpenAI-compatible chat completions
// server for benchmarks: it answers every request with a streamed text
// answer ("hello" unless -text or -file says otherwise) and its usage. It
// prints its base URL (ending in /v1) on the first line of stdout and serves
// until interrupted.
//
//	go run ./bench/scripted-server -addr 127.0.0.1:0
//	go run ./bench/scripted-server -file bench/testdata/stream.md -piece 4 -delay 1ms -title "Streaming"
//	go run ./bench/scripted-server -bash true   # a bash tool call, then the answer
//	go run ./bench/scripted-server -task        # the five-step task (see task.go)
package main

import (
	"encoding/json"
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
	file := flag.String("file", "", "stream this file's content as the answer instead of -text")
	piece := flag.Int("piece", 0, "runes per delta (0: the scripted server's default, 3)")
	delay := flag.Duration("delay", 0, "wait before each streamed chunk (e.g. 1ms), of the answer and of the "+
		"-bash or -read tool call alike: a model's pace, beside which a sandbox's set-up at the call's first "+
		"chunk goes on")
	title := flag.String("title", "", "when set, requests that offer no tools (a client's title or summary "+
		"request) get this short answer at once instead")
	bash := flag.String("bash", "", "when set, a request whose last message is the user's is answered with a "+
		"bash tool call running this command (the answer follows its result)")
	read := flag.String("read", "", "when set, a request whose last message is the user's is answered with a "+
		"read_file tool call of this path (the answer follows its result)")
	task := flag.Bool("task", false, "answer as the five-step task's model does, for agent and Crush alike "+
		"(list, search, read, edit, then the answer; task.go)")
	flag.Parse()

	answer := *text
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			log.Fatalf("scripted-server: %v", err)
		}
		answer = string(b)
	}
	reply := scripted.Text(answer).WithPieceSize(*piece).WithChunkDelay(*delay)
	opts := scripted.Options{RepeatLast: true, DiscardRequests: true}
	if *task {
		opts.Respond = taskReply
	}
	if *title != "" || *bash != "" || *read != "" {
		short := scripted.Text(*title)
		args, _ := json.Marshal(map[string]string{"command": *bash})
		call := scripted.ToolCalls(scripted.Call{ID: "call_1", Name: "bash", Arguments: string(args)})
		if *read != "" {
			args, _ = json.Marshal(map[string]string{"path": *read})
			call = scripted.ToolCalls(scripted.Call{ID: "call_1", Name: "read_file", Arguments: string(args)})
		}
		call = call.WithPieceSize(*piece).WithChunkDelay(*delay)
		opts.Respond = func(c scripted.ChatRequest) scripted.Reply {
			switch {
			case *title != "" && len(c.Tools) == 0:
				return short
			case (*bash != "" || *read != "") && len(c.Messages) > 0 && c.Messages[len(c.Messages)-1].Role == "user":
				return call
			}
			return reply
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("scripted-server: %v", err)
	}
	h := scripted.NewHandler(opts, reply)
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
