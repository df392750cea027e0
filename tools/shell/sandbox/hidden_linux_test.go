//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// secret is what the credential files of these tests hold; a command's
// output must never carry it.
const secret = "PRIVATE-KEY-d41d8cd98f00b204"

// A command cannot read the credential files of Policy.Hidden, however it
// spells the path: directly, relatively, through a symlink it finds or
// makes, through /proc/self/root or the agent's /proc/PID/root, by a hard
// link, by copying or by listing them.
func TestHiddenCredentialsStayUnreadable(t *testing.T) {
	home := t.TempDir()
	ssh, netrc, dots := filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(home, "dotfiles", "aws")
	for _, d := range []string{ssh, dots} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(ssh, "id_ed25519"), secret+"\n")
	write(t, netrc, "machine example.com login me password "+secret+"\n")
	write(t, filepath.Join(dots, "credentials"), secret+"\n")
	aws := filepath.Join(home, ".aws")
	if err := os.Symlink(dots, aws); err != nil { // ~/.aws kept in a dotfiles repository
		t.Fatal(err)
	}
	b := newBox(t, func(p *Policy) { p.Hidden = []string{ssh, netrc, aws, filepath.Join(home, ".kube")} })
	b.needNamespaces()
	rel, _ := filepath.Rel(b.work, ssh)
	attacks := map[string]string{
		"direct":          "cat " + ssh + "/id_ed25519",
		"relative":        "cat " + rel + "/id_ed25519",
		"list":            "ls -la " + ssh,
		"netrc":           "cat " + netrc,
		"symlinked dir":   "cat " + aws + "/credentials",
		"its target":      "cat " + dots + "/credentials",
		"new symlink":     "ln -s " + ssh + " link && cat link/id_ed25519",
		"proc self root":  "cat /proc/self/root" + ssh + "/id_ed25519",
		"agent's root":    "cat /proc/" + strconv.Itoa(os.Getpid()) + "/root" + ssh + "/id_ed25519",
		"hard link":       "ln " + ssh + "/id_ed25519 hard && cat hard",
		"copy":            "cp -r " + ssh + " copy; cat copy/id_ed25519",
		"grep":            "grep -r PRIVATE " + home,
		"find and read":   "find " + home + " -type f -exec cat {} +",
		"unmount":         "umount " + ssh + "; cat " + ssh + "/id_ed25519",
		"python":          "python3 -c 'print(open(\"" + ssh + "/id_ed25519\").read())' 2>&1 || true",
		"tar":             "tar -cf - -C " + home + " . | strings",
		"fd of the agent": "cat /proc/" + strconv.Itoa(os.Getpid()) + "/cwd/../../" + strings.TrimPrefix(ssh, "/") + "/id_ed25519",
	}
	for name, cmd := range attacks {
		res := b.run(cmd)
		if strings.Contains(res.Content, secret) {
			t.Errorf("%s: %q read the credentials:\n%s", name, cmd, res.Content)
		}
	}
	if res := b.run("cat " + ssh + "/id_ed25519"); !res.IsError && !strings.Contains(res.Content, "Permission denied") {
		t.Errorf("reading a hidden key should fail visibly: %+v", res)
	}
	// What is not hidden stays readable, and the files are untouched.
	write(t, filepath.Join(home, "notes"), "plain\n")
	if res := b.run("cat " + filepath.Join(home, "notes")); !strings.Contains(res.Content, "plain") {
		t.Errorf("a file beside the hidden ones is unreadable: %q", res.Content)
	}
	unchanged(t, filepath.Join(ssh, "id_ed25519"), secret+"\n")
	if st := b.sb.Status(); st.HiddenBy == "" || len(st.Hidden) != 4 {
		t.Errorf("status: hidden by %q, hidden %q; want the three existing paths and the symlink's target", st.HiddenBy, st.Hidden)
	}
}

// A credentials path that holds the working directory is not hidden (the
// work would vanish with it).
func TestHiddenSkipsWhatHoldsTheWork(t *testing.T) {
	gh := filepath.Join(t.TempDir(), "gh")
	ssh := filepath.Join(filepath.Dir(gh), ".ssh")
	for _, d := range []string{filepath.Join(gh, "work"), ssh} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Dir: filepath.Join(gh, "work"), Hidden: []string{gh, ssh}}
	if got := p.hidden(); len(got) != 1 || got[0] != ssh {
		t.Errorf("hidden = %q, want only %s", got, ssh)
	}
}
