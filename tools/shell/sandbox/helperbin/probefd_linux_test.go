package helperbin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/tools/shell/sandbox/helper"
)

// TestTheHelpersReportHowFarTheirSetUpGot runs both helpers (the embedded C
// one and the Go one this test's binary becomes) as a session's first
// command, which probes its namespaces as it starts
// (helper.Options.ProbeFD), in user and mount namespaces of their own, and
// checks what each reports on its probe socket: a failure before its set-up
// got as far as a probe's goes there, not to the command's output; once
// there, "ok" and then the session's tmpfs that it made, mounted for its
// program; a failure after that goes to the command's output as any
// command's does. Both helpers report the same.
func TestTheHelpersReportHowFarTheirSetUpGot(t *testing.T) {
	f, self := helpers(t)
	work, tmp := t.TempDir(), t.TempDir()
	missing := filepath.Join(t.TempDir(), "missing")
	base := []string{helper.Arg, "--ruleset-fd=-1", "--grace-ms=0", "--private-mounts", "--rw=" + work, "--ro-rest"}
	cases := []struct {
		name        string
		args        []string
		code        int
		out, report string // report: the probe socket's text
		tmpfs       bool   // a descriptor came on the socket
	}{
		{name: "fails before a probe's set-up", args: []string{"--rw=" + missing, "--probe-fd=3", "--", "/bin/sh", "-c", "echo ran"},
			code: helper.ExitSetup, report: "agent sandbox: bind-mounting " + missing + ": no such file or directory\n"},
		{name: "runs", args: []string{"--make-tmp=1048576", "--tmp-at=" + tmp, "--probe-fd=3", "--",
			"/bin/sh", "-c", "stat -f -c %T " + tmp + " && echo x > " + tmp + "/x && echo wrote"},
			out: "tmpfs\nwrote\n", report: "ok\n", tmpfs: true},
		{name: "fails after a probe's set-up", args: []string{"--ro=" + missing, "--probe-fd=3", "--", "/bin/sh", "-c", "echo ran"},
			code: helper.ExitSetup, out: "agent sandbox: bind-mounting " + missing + ": no such file or directory\n", report: "ok\n"},
	}
	for _, c := range cases {
		for _, h := range []string{"C", "Go"} {
			pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			mine, theirs := os.NewFile(uintptr(pair[0]), "mine"), os.NewFile(uintptr(pair[1]), "theirs")
			args := append(base[:len(base):len(base)], c.args...)
			var cmd *exec.Cmd
			if h == "C" {
				path, extra := Exec(f, []*os.File{theirs})
				cmd = exec.Command(path, args...)
				cmd.ExtraFiles = extra
			} else {
				cmd = exec.Command(self, args...)
				cmd.ExtraFiles = []*os.File{theirs}
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
				UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
				GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				mine.Close()
				theirs.Close()
				t.Skipf("user namespaces are unavailable here: %v", err)
			}
			theirs.Close()
			report, fds := readAll(t, mine)
			mine.Close()
			err = cmd.Wait()
			for _, fd := range fds {
				syscall.Close(fd)
			}
			if code := exitCode(err); code != c.code || out.String() != c.out || report != c.report || (len(fds) == 1) != c.tmpfs {
				t.Errorf("%s helper, %s: exit %d, output %q, report %q with %d descriptors; want exit %d, output %q, report %q, tmpfs %v",
					h, c.name, code, out.String(), report, len(fds), c.code, c.out, c.report, c.tmpfs)
			}
		}
	}
}

// readAll reads a probe socket to its end: the text of its records (the
// one byte that carries a descriptor left out) and the descriptors.
func readAll(t *testing.T, f *os.File) (string, []int) {
	t.Helper()
	var text strings.Builder
	var fds []int
	buf, oob := make([]byte, 8192), make([]byte, syscall.CmsgSpace(4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(int(f.Fd()), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || (n == 0 && oobn == 0) {
			return text.String(), fds
		}
		rec := buf[:n]
		if oobn > 0 {
			msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
			for _, m := range msgs {
				got, _ := syscall.ParseUnixRights(&m)
				fds = append(fds, got...)
			}
			rec = bytes.TrimPrefix(rec, []byte{0})
		}
		text.Write(rec)
	}
}
