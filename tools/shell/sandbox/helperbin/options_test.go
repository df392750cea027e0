package helperbin

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// TestTheHelpersReadTheSameOptions gives the embedded C helper command
// lines that package helper's Parse refuses and checks that it refuses
// each with the same message and ExitSetup, before doing anything. The
// first is every option Options.Args writes, then one it does not know: a
// C helper that refused an option the agent writes would fail there
// instead. (Nothing here may be accepted: the test runs outside any
// namespace, and a helper that went on would change this machine's
// mounts.)
func TestTheHelpersReadTheSameOptions(t *testing.T) {
	f, _ := helpers(t)
	every := helper.Options{RulesetFD: 3, Writable: []string{"/w", "/w 2"}, ReadOnlyRest: true, Pinned: []string{"/w/.git"},
		ReadOnly: []string{"/w/.git/hooks"}, Hidden: []string{"/home/u/.npmrc"}, PrivateMounts: true, Loopback: true,
		NoUnixSockets: true, Grace: 1500 * time.Millisecond, Probe: true, MaxProcs: 1024, CgroupFD: 4,
		CgroupThread: true, TmpFD: 5, TmpAt: "/tmp/agent-tmp-1", MakeTmp: 1 << 30, ProbeFD: 6, TmpRights: 16383,
		MapIDs: true, UID: 1000, GID: 1000, SuperviseOnly: true}.Args()
	every = append(every[:len(every)-1:len(every)-1], "--unheard-of", "--", "/bin/true")
	cases := [][]string{
		every,
		{"--grace-ms=soon", "--", "/bin/true"},
		{"--grace-ms=-1", "--", "/bin/true"},
		{"--ruleset-fd=three", "--", "/bin/true"},
		{"--max-procs=-5", "--", "/bin/true"},
		{"--cgroup-fd=x", "--", "/bin/true"},
		{"--tmp-fd=", "--", "/bin/true"},
		{"--map-ids=1000", "--", "/bin/true"},
		{"--map-ids=a:b", "--", "/bin/true"},
		{"--make-tmp=0", "--", "/bin/true"},
		{"--probe-fd=-3", "--", "/bin/true"},
		{"--tmp-rights=0", "--", "/bin/true"},
		{"--rw=/w"},
		{"--rw=/w", "--"},
		{"-x", "--", "/bin/true"},
		{"--grace-ms=99999999999999999999", "--", "/bin/true"},
		{"--max-procs=+-3", "--", "/bin/true"},
		{"--max-procs=+3", "-q\"\\\x01\n\x7fé", "--", "/bin/true"},
	}
	for _, args := range cases {
		_, perr := helper.Parse(args)
		if perr == nil {
			t.Fatalf("helper.Parse accepted %q: the case would run", args)
		}
		path, extra := Exec(f, nil)
		cmd := exec.Command(path, append([]string{helper.Arg}, args...)...)
		cmd.ExtraFiles = extra
		out, err := cmd.CombinedOutput()
		want := "agent sandbox: " + perr.Error() + "\n"
		if code := exitCode(err); code != helper.ExitSetup || string(out) != want {
			t.Errorf("%q: the C helper exited %d with %q; the Go helper's Parse says %q (exit %d)",
				strings.Join(args, " "), code, out, want, helper.ExitSetup)
		}
	}
}

// TestTheHelpersEndAsTheirProgramEnds supervises programs that exit or
// die by a signal under both helpers (the embedded C one, and the Go one
// that this test's own binary becomes, as the agent's does) and checks
// that each ends as its program did: the same exit code, or killed by the
// same signal, which the agent reports. (Supervising only: nothing here
// needs or changes namespaces.)
func TestTheHelpersEndAsTheirProgramEnds(t *testing.T) {
	f, self := helpers(t)
	for _, c := range []struct {
		script string
		code   int
		sig    syscall.Signal
	}{
		{"exit 3", 3, 0},
		{"kill -TERM $$", -1, syscall.SIGTERM},
		{"kill -ABRT $$", -1, syscall.SIGABRT},
		{"kill -SEGV $$", -1, syscall.SIGSEGV},
		{"kill -PIPE $$", -1, syscall.SIGPIPE},
		{"kill -QUIT $$", -1, syscall.SIGQUIT},
	} {
		for _, h := range []string{"C", "Go", "C, started with SIGCHLD ignored"} {
			args := []string{helper.Arg, "--ruleset-fd=-1", "--grace-ms=0", "--supervise-only", "--", "/bin/sh", "-c", c.script}
			// A helper that waits for a SIGCHLD that never comes is
			// stopped by the deadline (the test fails; it does not hang).
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var cmd *exec.Cmd
			switch h {
			case "C":
				path, extra := Exec(f, nil)
				cmd = exec.CommandContext(ctx, path, args...)
				cmd.ExtraFiles = extra
			case "Go":
				cmd = exec.CommandContext(ctx, self, args...)
			default:
				// The kernel reaps the children of a process that ignores
				// SIGCHLD itself, and sends none.
				// (python3, which the tests need anyway: a shell's trap ""
				// CHLD does not reach the program it execs.)
				py, err := exec.LookPath("python3")
				if err != nil {
					t.Skip("no python3 to start the helper with SIGCHLD ignored")
				}
				path, extra := Exec(f, nil)
				ignore := "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
				cmd = exec.CommandContext(ctx, py, append([]string{"-c", ignore, path}, args...)...)
				cmd.ExtraFiles = extra
			}
			out, _ := cmd.CombinedOutput()
			if len(out) > 200 {
				out = append(out[:200], "..."...)
			}
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok {
				t.Fatalf("%s helper, %q: no wait status", h, c.script)
			}
			switch {
			case c.sig == 0 && (ws.Signaled() || ws.ExitStatus() != c.code):
				t.Errorf("%s helper, %q: %v, want exit %d (%q)", h, c.script, cmd.ProcessState, c.code, out)
			case c.sig != 0 && (!ws.Signaled() || ws.Signal() != c.sig):
				t.Errorf("%s helper, %q: %v, want killed by %v (%q)", h, c.script, cmd.ProcessState, c.sig, out)
			}
		}
	}
}
