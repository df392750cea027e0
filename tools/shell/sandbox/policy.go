// Package sandbox confines the bash tool's commands with the operating
// system's sandbox: on Linux, Landlock (filesystem, TCP, scopes) applied by
// a helper that the agent's binary re-executes (package helper), with user,
// mount and network namespaces where the kernel allows them; on macOS,
// sandbox-exec with a generated Seatbelt profile. Elsewhere it reports that
// nothing confines commands, and the permission policy asks before each.
//
// A Sandbox's Build method is a shell.Builder: the bash tool starts every
// command through it.
package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Mode says what commands may change.
type Mode string

// The modes, as written on the command line (--sandbox) and in the config.
const (
	// WorkspaceWrite lets commands read everything and write only the
	// working directory, the temporary directories and the configured
	// writable roots; Protected paths stay read-only inside them.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly lets commands read everything and write nothing but
	// /dev/null and its kind.
	ReadOnly Mode = "read-only"
	// Off runs commands unconfined.
	Off Mode = "off"
)

// ParseMode reads a mode name; "" is WorkspaceWrite. The error names the
// valid modes.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return WorkspaceWrite, nil
	case WorkspaceWrite, ReadOnly, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use workspace-write, read-only or off", s)
}

// Policy is what the sandbox allows. Paths are absolute; New cleans them.
type Policy struct {
	Mode Mode
	// Network lets commands open network connections. Off by default.
	Network bool
	// Dir is the working directory: writable in WorkspaceWrite.
	Dir string
	// WritableRoots are further directories writable in WorkspaceWrite.
	WritableRoots []string
	// TempDirs are the temporary directories writable in WorkspaceWrite;
	// nil means DefaultTempDirs.
	TempDirs []string
	// Protected are paths that stay read-only even inside a writable root:
	// the agent's own config and data directories (an agent that can
	// rewrite its config escapes on the next start). Dir/.git/hooks and
	// Dir/.git/config are always protected (both can name programs that
	// git runs outside the sandbox), and so are, when Dir/.git is a file
	// (a linked worktree, a submodule checkout), that file and the hooks,
	// config and worktree files of the git directory it names.
	Protected []string
	// ProtectedLater, when not nil, lists more Protected paths (absolute;
	// others are left out) the first time a command needs them, not when
	// the sandbox is made: the walk for the project configuration
	// directories below Dir (protect.NestedProject), which costs tens of
	// milliseconds in a large tree and is wasted on a run that runs no
	// command. It is called at most once.
	ProtectedLater func() []string
	// Hidden are files and directories commands may not read at all (the
	// credentials of protect.DefaultCredentials): on Linux an empty,
	// unreadable tmpfs is mounted over each directory and /dev/null over
	// each file in the command's mount namespace; on macOS the profile
	// denies reading them. A path reached through a symlink is hidden where
	// it leads as well. Paths that do not exist, and those that hold the
	// working directory, are left alone.
	Hidden []string

	// MaxProcesses, when positive, bounds the processes (threads) a
	// command and everything it starts may have at once (on Linux: a pids
	// cgroup where the agent may make one, else RLIMIT_NPROC in the
	// command's user namespace).
	MaxProcesses int
	// TempSize, when positive, gives commands a temporary directory of
	// their own for the Sandbox's life (TMPDIR; see Sandbox.TempDir), at
	// most TempSize bytes (on Linux with user namespaces, a tmpfs), in
	// place of TempDirs.
	TempSize int64
	// NetworkOf, when not nil and both have the network off, is the
	// sandbox whose session network namespace commands start in (on Linux,
	// where it keeps one), so that a server a background process of that
	// sandbox serves answers these commands too (the read-only sandbox of
	// plan mode and subagents). That sandbox must be closed after this one.
	NetworkOf *Sandbox

	// sessionTemp is the temporary directory for TempSize, made by
	// makeTemp at the first command (or the set-up before it), once.
	sessionTemp string
	makeTemp    func() error
	// git is the working directory's git layout as New found it.
	git gitLayout
}

// DefaultTempDirs are $TMPDIR (when set) and /tmp.
func DefaultTempDirs(getenv func(string) string) []string {
	dirs := []string{"/tmp"}
	if t := getenv("TMPDIR"); t != "" && filepath.IsAbs(t) && filepath.Clean(t) != "/tmp" {
		dirs = append(dirs, filepath.Clean(t))
	}
	return dirs
}

// writable returns the directories commands may write in, cleaned: none
// unless the mode is WorkspaceWrite.
func (p Policy) writable() []string {
	if p.Mode != WorkspaceWrite {
		return nil
	}
	var out []string
	for _, d := range append(append([]string{p.Dir}, p.TempDirs...), p.WritableRoots...) {
		if d != "" {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// allProtected is Protected and what ProtectedLater lists.
func (p Policy) allProtected() []string {
	if p.ProtectedLater == nil {
		return p.Protected
	}
	return append(slices.Clip(p.Protected), p.ProtectedLater()...)
}

// protected returns the paths to keep read-only that lie inside a writable
// root (outside them, the sandbox denies writes anyway). A protected path
// reached through a symlink counts twice: as written and as resolved (a
// config directory linked into a dotfiles repository that is the working
// directory).
func (p Policy) protected() []string {
	var out []string
	candidates := []string{filepath.Join(p.Dir, ".git", "hooks"), filepath.Join(p.Dir, ".git", "config")}
	candidates = append(candidates, p.git.protectedPaths()...)
	for _, path := range p.allProtected() {
		candidates = append(candidates, path)
		if real, err := filepath.EvalSymlinks(path); err == nil && real != filepath.Clean(path) {
			candidates = append(candidates, real)
		}
	}
	for _, path := range candidates {
		path = filepath.Clean(path)
		if p.rootOf(path) != "" && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	return out
}

// hidden returns the Hidden paths to hide now: those that exist, as
// written and resolved, without those that hold the working directory or a
// writable root (hiding them would hide the work).
func (p Policy) hidden() []string {
	var out []string
	for _, h := range p.Hidden {
		forms := []string{h}
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			forms = append(forms, real)
		} else if err != nil {
			continue // missing: nothing to read
		}
		for _, f := range forms {
			holds := within(p.Dir, f)
			for _, w := range p.WritableRoots {
				holds = holds || within(w, f)
			}
			if !holds && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// rootOf returns the deepest writable root that holds path, "" for none.
// Each root counts as written and with its symlinks resolved, so that a
// resolved path is found in a root given through a symlink; the form that
// holds path is returned.
func (p Policy) rootOf(path string) string {
	best := ""
	for _, r := range p.writable() {
		forms := []string{r}
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			forms = append(forms, real)
		}
		for _, f := range forms {
			if within(path, f) && len(f) > len(best) {
				best = f
			}
		}
	}
	return best
}

// within reports whether path is root or beneath it (both clean).
func within(path, root string) bool {
	if root == "/" {
		return true
	}
	return path == root || strings.HasPrefix(path, root+"/")
}

// Status is what confines commands on this machine under a policy, for
// `agent doctor`, the bash tool's description and the permission policy.
type Status struct {
	Mode    Mode
	Network bool
	// Enforced is true when commands run confined as the policy says. When
	// it is false and the mode is not Off, Reason says why, and commands
	// must not run without a person's approval.
	Enforced bool
	Reason   string
	// Mechanism names what confines the filesystem ("Landlock ABI 7",
	// "sandbox-exec"), NetworkBy what keeps the network off ("network
	// namespace", "Landlock TCP rules"), ProtectedBy what keeps Protected
	// paths read-only; each is "" when it does not apply.
	Mechanism   string
	NetworkBy   string
	ProtectedBy string
	// HiddenBy says what keeps the Hidden paths unreadable ("" when
	// nothing does: a warning says so); Hidden lists those that exist now.
	HiddenBy string
	Hidden   []string
	// Bounds say what bounds commands' processes and temporary files
	// ("at most 1024 processes (pids cgroup)").
	Bounds []string
	// Warnings are weaker guarantees than the policy asks for, said plainly.
	Warnings []string
	// LandlockABI is the kernel's Landlock ABI version (0: none);
	// UserNamespaces whether the agent can create user namespaces, and
	// UserNamespacesErr why not. Linux only.
	LandlockABI       int
	UserNamespaces    bool
	UserNamespacesErr string
}

// Summary is the mode in a few words: "workspace-write, network off".
func (s Status) Summary() string {
	if s.Mode == Off {
		return "off"
	}
	net := "network off"
	if s.Network {
		net = "network on"
	}
	if !s.Enforced {
		return fmt.Sprintf("%s, %s (not enforced: %s)", s.Mode, net, s.Reason)
	}
	return fmt.Sprintf("%s, %s", s.Mode, net)
}

// Confinement is the sentence for the bash tool's description; "" when
// commands are not confined. It needs only what Brief gives.
func (s Status) Confinement() string {
	if s.Mode == Off || !s.Enforced {
		return ""
	}
	what := "may write only in the working directory and the temporary directory $TMPDIR (and .git/hooks and .git/config stay read-only), and cannot read credential files (~/.ssh, ~/.aws, ~/.netrc and the like)"
	if s.Mode == ReadOnly {
		what = "may not write any file nor read credential files (~/.ssh, ~/.aws, ~/.netrc and the like)"
	}
	net := "have no network access"
	if s.Network {
		net = "may use the network"
	}
	return fmt.Sprintf("Sandbox (%s): commands %s, and %s. An operation the sandbox refuses fails with \"Permission denied\", \"Read-only file system\" or a network error: do not try to work around it; tell the user what needs more access.", s.Summary(), what, net)
}

// devices are the files every command may write, as it may /dev/null.
// /dev/tty is not among them: a command has no controlling terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
