package shell

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/toolstest"
)

// hangLimit bounds how long a call that should return promptly may take
// before the test calls it hung. It detects hangs; it measures nothing.
const hangLimit = 20 * time.Second

func newTool(t *testing.T, cfg Config) *Tool {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is not installed, and CI must run this test")
		}
		t.Skip("bash is not installed")
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	return New(cfg)
}

// run calls the tool with ctx and the arguments encoded from a, failing the
// test on a Go error or a hang.
func run(t *testing.T, ctx context.Context, tool *Tool, a map[string]any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools.NewRegistry(tool); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res tools.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := tool.Run(ctx, tools.Call{Args: raw})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("Run(%s) returned a Go error: %v", raw, o.err)
		}
		return o.res
	case <-time.After(hangLimit):
		t.Fatalf("Run(%s) did not return within %v", raw, hangLimit)
	}
	panic("unreachable")
}

func TestConformance(t *testing.T) {
	toolstest.Run(t, toolstest.Suite{
		Tool: newTool(t, Config{MaxTimeout: time.Minute}),
		SchemaInvalid: []string{
			`{}`,
			`{"command":""}`,
			`{"command":1}`,
			`{"command":"ls","timeout_ms":0}`,
			`{"command":"ls","timeout_ms":60001}`,
			`{"command":"ls","timeout_ms":1.5}`,
			`{"command":"ls","extra":true}`,
		},
		BadArgs:  []string{`{"command":"  \n "}`},
		SlowArgs: `{"command":"sleep 60"}`,
	})
}

func TestDefinition(t *testing.T) {
	tool := New(Config{DefaultTimeout: 90 * time.Second, MaxTimeout: 5 * time.Minute, OutputLimit: 1234})
	def := tool.Definition()
	if def.Name != "bash" || def.ReadOnly {
		t.Errorf("Name, ReadOnly = %q, %v; want bash, false", def.Name, def.ReadOnly)
	}
	for _, want := range []string{"90 seconds", "5 minutes", "1234 bytes"} {
		if !strings.Contains(def.Description, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
	if strings.Contains(def.Description, "{{") {
		t.Errorf("description has an unfilled placeholder:\n%s", def.Description)
	}
	if !strings.Contains(string(def.Schema), `"maximum":300000`) {
		t.Errorf("schema does not cap timeout_ms at MaxTimeout: %s", def.Schema)
	}
}

func TestExitStatus(t *testing.T) {
	tool := newTool(t, Config{})
	tests := []struct {
		command string
		want    string
		code    int
	}{
		{"echo hi", "hi\nexit status 0", 0},
		{"true", "exit status 0", 0},
		{"printf 'no newline'; exit 3", "no newline\nexit status 3", 3},
		{"echo failing test >&2; exit 1", "failing test\nexit status 1", 1},
		{"kill -KILL $$", "signal: killed", -1},
	}
	for _, tt := range tests {
		res := run(t, context.Background(), tool, map[string]any{"command": tt.command})
		if res.IsError {
			t.Errorf("%q: a command that exits is not an error result: %+v", tt.command, res)
		}
		if res.Content != tt.want {
			t.Errorf("%q: Content = %q, want %q", tt.command, res.Content, tt.want)
		}
		if res.Meta["exit_code"] != tt.code {
			t.Errorf("%q: exit_code = %v, want %d", tt.command, res.Meta["exit_code"], tt.code)
		}
		if _, err := json.Marshal(res.Meta); err != nil {
			t.Errorf("Meta does not encode as JSON: %v", err)
		}
	}
}

func TestStdoutAndStderrKeepTheirOrder(t *testing.T) {
	tool := newTool(t, Config{})
	res := run(t, context.Background(), tool, map[string]any{
		"command": `for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; ls /no/such/path`,
	})
	want := "out1\nerr1\nout2\nerr2\nout3\nerr3\nout4\nerr4\nout5\nerr5\n"
	if !strings.HasPrefix(res.Content, want) {
		t.Errorf("Content = %q, want it to start with %q", res.Content, want)
	}
	if !strings.Contains(res.Content, "/no/such/path") || !strings.HasSuffix(res.Content, "exit status 2") {
		t.Errorf("Content = %q, want ls's error and exit status 2", res.Content)
	}
}

func TestOutputCapKeepsHeadAndTail(t *testing.T) {
	tool := newTool(t, Config{OutputLimit: 1000})
	res := run(t, context.Background(), tool, map[string]any{"command": "seq 1 100000"})
	if res.IsError || res.Meta["truncated"] != true {
		t.Fatalf("want a truncated success, got IsError=%v Meta=%v", res.IsError, res.Meta)
	}
	if !strings.HasPrefix(res.Content, "1\n2\n3\n") {
		t.Errorf("head missing: %.60q", res.Content)
	}
	if !strings.HasSuffix(res.Content, "99999\n100000\nexit status 0") {
		t.Errorf("tail missing: ...%q", res.Content[max(0, len(res.Content)-60):])
	}
	if !strings.Contains(res.Content, "lines) cut from the middle of the output ...]") {
		t.Errorf("no marker in %q", res.Content)
	}
	if len(res.Content) > 1000+200 {
		t.Errorf("Content is %d bytes; the cap is 1000 plus marker and status", len(res.Content))
	}
	if res.Meta["output_bytes"] != int64(len(seq(1, 100000))) {
		t.Errorf("output_bytes = %v, want %d", res.Meta["output_bytes"], len(seq(1, 100000)))
	}
}

func TestHugeOutputStaysBounded(t *testing.T) {
	tool := newTool(t, Config{})
	const size = 100_000_000
	res := run(t, context.Background(), tool, map[string]any{"command": "head -c 100000000 /dev/zero | tr '\\0' 'a'; echo; echo end"})
	if res.IsError {
		t.Fatalf("IsError: %.300q", res.Content)
	}
	if res.Meta["output_bytes"] != int64(size+len("\nend\n")) {
		t.Errorf("output_bytes = %v", res.Meta["output_bytes"])
	}
	if len(res.Content) > DefaultOutputLimit+200 {
		t.Errorf("Content is %d bytes, want about %d", len(res.Content), DefaultOutputLimit)
	}
	if !strings.HasSuffix(res.Content, "\nend\nexit status 0") {
		t.Errorf("tail missing: ...%q", res.Content[len(res.Content)-40:])
	}
}

func TestInvalidUTF8IsMadeSafe(t *testing.T) {
	tool := newTool(t, Config{})
	res := run(t, context.Background(), tool, map[string]any{"command": `printf 'caf\xc3\xa9 \xff\xfe end\n'`})
	if !utf8.ValidString(res.Content) || !strings.HasPrefix(res.Content, "café \uFFFD") {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestStdinIsClosed(t *testing.T) {
	tool := newTool(t, Config{})
	res := run(t, context.Background(), tool, map[string]any{"command": `cat; read line; echo "read status $?"`})
	if res.Content != "read status 1\nexit status 0" {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestWorkingDirectory(t *testing.T) {
	t.Setenv("PWD", "/agent/own/dir")
	dir := t.TempDir()
	tool := newTool(t, Config{Dir: dir})
	res := run(t, context.Background(), tool, map[string]any{"command": "pwd -P; echo $PWD; echo made > here.txt"})
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := real + "\n" + real + "\nexit status 0"; res.Content != want {
		t.Errorf("Content = %q, want %q", res.Content, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "here.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("here.txt = %q, %v", b, err)
	}
}

func TestMissingDirectoryIsAnErrorResult(t *testing.T) {
	tool := newTool(t, Config{Dir: filepath.Join(t.TempDir(), "gone")})
	res := run(t, context.Background(), tool, map[string]any{"command": "true"})
	if !res.IsError || !strings.Contains(res.Content, "starting the command") {
		t.Errorf("want an error result about starting, got %+v", res)
	}
}

func TestEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-1")
	t.Setenv("MY_PROVIDER_KEY", "secret-2")
	t.Setenv("AGENT_TEST_KEEP", "kept")
	t.Setenv("PAGER", "less")
	tool := newTool(t, Config{StripEnv: []string{"MY_PROVIDER_KEY"}})
	res := run(t, context.Background(), tool, map[string]any{"command": "env"})
	for _, secret := range []string{"sk-secret-1", "secret-2", "OPENAI_API_KEY", "MY_PROVIDER_KEY"} {
		if strings.Contains(res.Content, secret) {
			t.Errorf("the command saw %q", secret)
		}
	}
	lines := strings.Split(res.Content, "\n")
	for _, want := range []string{"AGENT_TEST_KEEP=kept", "TERM=dumb", "NO_COLOR=1", "PAGER=cat", "GIT_PAGER=cat"} {
		n := 0
		for _, l := range lines {
			if l == want {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q appears %d times in the environment, want once", want, n)
		}
	}
}

func TestExplicitEnvIsStrippedToo(t *testing.T) {
	tool := newTool(t, Config{Env: []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=x", "ONLY=1"}})
	res := run(t, context.Background(), tool, map[string]any{"command": `echo "[$OPENAI_API_KEY][$ONLY][$HOME]"`})
	if !strings.HasPrefix(res.Content, "[][1][]\n") {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestBuilderIsTheCommandSeam(t *testing.T) {
	var got Spec
	tool := newTool(t, Config{Build: func(s Spec) (*exec.Cmd, error) {
		got = s
		cmd, err := BashCommand(s)
		if err != nil {
			return nil, err
		}
		cmd.Args = append(cmd.Args[:2], "echo wrapped; "+s.Command)
		return cmd, nil
	}})
	res := run(t, context.Background(), tool, map[string]any{"command": "echo inner"})
	if res.Content != "wrapped\ninner\nexit status 0" {
		t.Errorf("Content = %q", res.Content)
	}
	if got.Command != "echo inner" || got.Dir == "" || len(got.Env) == 0 {
		t.Errorf("Builder got %+v", got)
	}

	refuse := newTool(t, Config{Build: func(Spec) (*exec.Cmd, error) {
		return nil, exec.ErrNotFound
	}})
	res = run(t, context.Background(), refuse, map[string]any{"command": "true"})
	if !res.IsError {
		t.Errorf("a Builder error should be an error result, got %+v", res)
	}
}

func TestTimeout(t *testing.T) {
	tool := newTool(t, Config{})
	res := run(t, context.Background(), tool, map[string]any{"command": "echo started; sleep 1000", "timeout_ms": 1000})
	if !res.IsError || res.Meta["timed_out"] != true {
		t.Fatalf("want a timed-out error result, got %+v", res)
	}
	if !strings.HasPrefix(res.Content, "started\n") || !strings.Contains(res.Content, "timed out after 1000 ms") {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	tool := newTool(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := tool.cfg.Dir
	res := run(t, ctx, tool, map[string]any{"command": "touch ran"})
	if !res.IsError {
		t.Errorf("want an error result, got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("the command ran although the context was cancelled")
	}
}

func seq(from, to int) string { return numbered(from, to) }

func TestConcurrentRuns(t *testing.T) {
	tool := newTool(t, Config{})
	results := make(chan string, 4)
	for i := range 4 {
		go func() {
			raw, _ := json.Marshal(map[string]any{"command": "echo run " + strconv.Itoa(i)})
			res, err := tool.Run(context.Background(), tools.Call{Args: raw})
			if err != nil {
				t.Error(err)
			}
			results <- res.Content
		}()
	}
	for range 4 {
		select {
		case got := <-results:
			if !strings.HasPrefix(got, "run ") || !strings.HasSuffix(got, "\nexit status 0") {
				t.Errorf("Content = %q", got)
			}
		case <-time.After(hangLimit):
			t.Fatal("concurrent runs hung")
		}
	}
}
