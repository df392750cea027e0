// Command protocols measures what the protocol front-ends cost at start:
// for each run it spawns the agent and times, from the spawn, (1) `agent
// acp` answering initialize, (2) its first agent_message_chunk (after
// session/new and session/prompt), (3) the Claude Agent SDK's protocol
// (--input-format stream-json) writing its first assistant text, and (4)
// `agent -p PROMPT --output-format stream-json` writing its first
// text_delta. It prints the median and quartiles of each over -runs runs,
// and of the differences between (2) and (4) within each run: the two are
// measured one after the other, so a busy machine's load, which moves the
// medians by tens of milliseconds from one batch of runs to the next,
// weighs on both alike and the difference is what the goal (ACP within
// 10 ms of -p) is about. By default session/new is sent beside
// initialize; -wait-initialize sends it once initialize is answered, as
// the official ACP client does.
//
//	go run ./bench/protocols -agent bench/out/agent -url http://127.0.0.1:PORT/v1 -runs 30
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	bin := flag.String("agent", "bench/out/agent", "the agent binary")
	url := flag.String("url", "", "the scripted server's base URL")
	runs := flag.Int("runs", 30, "runs of each measurement")
	prompt := flag.String("prompt", "hi", "the prompt")
	only := flag.String("only", "", "run one measurement only: acp, sdk or print (to profile it)")
	waitInit := flag.Bool("wait-initialize", false, "send session/new once initialize is answered, as the official "+
		"ACP client does, instead of beside it")
	flag.Parse()
	if *url == "" {
		log.Fatal("protocols: -url is required")
	}
	work, err := os.MkdirTemp("", "protocols")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	common := []string{"--base-url", *url, "--model", "scripted", "--db", work + "/bench.db"}
	var initT, chunkT, sdkT, printT, acpCPU, sdkCPU, printCPU []time.Duration
	for range *runs {
		if *only == "" || *only == "acp" {
			i, c, cpu := acp(*bin, work, common, *prompt, *waitInit)
			initT, chunkT, acpCPU = append(initT, i), append(chunkT, c), append(acpCPU, cpu)
		}
		if *only == "" || *only == "sdk" {
			t, cpu := sdk(*bin, work, common, *prompt)
			sdkT, sdkCPU = append(sdkT, t), append(sdkCPU, cpu)
		}
		if *only == "" || *only == "print" {
			t, cpu := printed(*bin, work, common, *prompt)
			printT, printCPU = append(printT, t), append(printCPU, cpu)
		}
	}
	// The differences are taken before report sorts the lists.
	var diffs []time.Duration
	if len(chunkT) == len(printT) {
		for i := range printT {
			diffs = append(diffs, chunkT[i]-printT[i])
		}
	}
	report("acp: spawn → initialize answered", initT)
	report("acp: spawn → first agent_message_chunk", chunkT)
	report("sdk stream-json: spawn → first assistant text", sdkT)
	report("agent -p stream-json: spawn → first text_delta", printT)
	report("acp first chunk − -p first text_delta, same run", diffs)
	// CPU time (user + system) of the whole run: what the process itself
	// spends, which a busy machine's waits do not inflate.
	report("acp: CPU time of the run (one prompt)", acpCPU)
	report("sdk stream-json: CPU time of the run", sdkCPU)
	report("agent -p stream-json: CPU time of the run", printCPU)
}

// cpu is the user and system time the exited process used.
func cpu(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// start spawns the agent in dir with args and returns its stdin, a line
// reader over its stdout, and the spawn time.
func start(bin, dir string, args []string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner, time.Time) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return cmd, in, sc, t0
}

// until reads lines until one contains all of want, and returns the time
// since t0.
func until(sc *bufio.Scanner, t0 time.Time, want ...string) time.Duration {
	for sc.Scan() {
		line := sc.Text()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(line, w)
		}
		if ok {
			return time.Since(t0)
		}
	}
	log.Fatalf("the agent's output ended before a line with %q", want)
	return 0
}

func send(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	if _, err := w.Write(append(b, '\n')); err != nil {
		log.Fatal(err)
	}
}

func acp(bin, dir string, common []string, prompt string, waitInit bool) (time.Duration, time.Duration, time.Duration) {
	cmd, in, sc, t0 := start(bin, dir, append([]string{"acp"}, common...))
	send(in, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}})
	var initT time.Duration
	if waitInit {
		initT = until(sc, t0, `"id":1`)
	}
	send(in, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": dir, "mcpServers": []any{}}})
	// The two answers may come in either order: session/new's can pass
	// initialize's on a busy machine.
	var sid string
	for (initT == 0 || sid == "") && sc.Scan() {
		var m struct {
			ID     int `json:"id"`
			Result *struct {
				SessionID string `json:"sessionId"`
			} `json:"result"`
			Error any `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == 0 {
			continue
		}
		if m.Result == nil {
			log.Fatalf("agent acp answered request %d with an error: %v", m.ID, m.Error)
		}
		switch m.ID {
		case 1:
			initT = time.Since(t0)
		case 2:
			sid = m.Result.SessionID
		}
	}
	if sid == "" {
		log.Fatal("agent acp's output ended before session/new was answered")
	}
	send(in, map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": prompt}}}})
	chunkT := until(sc, t0, `"agent_message_chunk"`)
	until(sc, t0, `"id":3`)
	in.Close()
	_ = cmd.Wait()
	return initT, chunkT, cpu(cmd)
}

func sdk(bin, dir string, common []string, prompt string) (time.Duration, time.Duration) {
	args := append([]string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--include-partial-messages"}, common...)
	cmd, in, sc, t0 := start(bin, dir, args)
	send(in, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	t := until(sc, t0, `"content_block_delta"`)
	until(sc, t0, `"type":"result"`)
	in.Close()
	_ = cmd.Wait()
	return t, cpu(cmd)
}

func printed(bin, dir string, common []string, prompt string) (time.Duration, time.Duration) {
	args := append([]string{"-p", prompt, "--no-stdin", "--output-format", "stream-json"}, common...)
	cmd, in, sc, t0 := start(bin, dir, args)
	t := until(sc, t0, `"text_delta"`)
	until(sc, t0, `"type":"result"`)
	in.Close()
	_ = cmd.Wait()
	return t, cpu(cmd)
}

func report(what string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	q := func(f float64) float64 { return float64(ds[int(f*float64(len(ds)-1))].Microseconds()) / 1000 }
	fmt.Printf("%-50s median %6.1f ms  (quartiles %.1f–%.1f, %d runs)\n", what, q(0.5), q(0.25), q(0.75), len(ds))
}
