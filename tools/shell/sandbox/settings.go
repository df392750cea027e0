package sandbox

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/protect"
)

// File is the config file's [sandbox] table: what commands may do.
//
//	[sandbox]
//	mode = "workspace-write"    # or "read-only", "off"
//	network = false
//	writable_roots = ["~/.cache/go-build"]
//	env_passthrough = ["GITHUB_TOKEN"]  # passed to commands although it looks like a secret (env_keep: the same)
//	env_remove = ["CORP_*"]      # never passed to commands
//	deny_read = ["~/.config/corp"]  # also unreadable to commands, beside ~/.ssh, ~/.aws, ~/.netrc...
//	allow_read = ["~/.docker"]   # credential paths commands may read after all
//	max_processes = 1024         # processes (threads) one command may have at once
//	tmp_size_mb = 1024           # the commands' own temporary directory (TMPDIR)
//	project_hooks = true         # a repository's trusted hooks run in the sandbox; false: as the person
//	plugin_hooks = true          # plugins' hooks run in the sandbox; false: as the person
type File struct {
	// Mode is workspace-write (default), read-only or off.
	Mode string `toml:"mode"`
	// Network lets commands use the network.
	Network bool `toml:"network"`
	// WritableRoots are directories commands may write besides the
	// working directory and the temporary directory: absolute, or starting
	// with ~/.
	WritableRoots []string `toml:"writable_roots"`
	// EnvKeep are patterns of variable names that commands get although
	// they look like secrets; EnvRemove further patterns they never get
	// (see shell.DefaultEnvRemove).
	EnvKeep   []string `toml:"env_keep"`
	EnvRemove []string `toml:"env_remove"`
	// EnvPassthrough are names (or patterns) of variables commands get
	// although their name or value looks like a secret: env_keep's newer
	// name, the two lists are joined.
	EnvPassthrough []string `toml:"env_passthrough"`
	// DenyRead are further files and directories commands may not read
	// (absolute, or starting with ~/); AllowRead are paths of
	// protect.DefaultCredentials they may read after all.
	DenyRead  []string `toml:"deny_read"`
	AllowRead []string `toml:"allow_read"`
	// MaxProcesses bounds the processes (threads) of one command; default
	// DefaultMaxProcesses.
	MaxProcesses int `toml:"max_processes"`
	// TmpSizeMB bounds the commands' own temporary directory, in MiB;
	// default DefaultTmpSizeMB.
	TmpSizeMB int `toml:"tmp_size_mb"`
	// ProjectHooks and PluginHooks, when false, run a repository's
	// trusted hooks (PluginHooks: installed plugins' hooks) unconfined, as
	// the person; nil or true runs them in the sandbox (workspace-write
	// at most, the session's network).
	ProjectHooks *bool `toml:"project_hooks"`
	PluginHooks  *bool `toml:"plugin_hooks"`
}

// Defaults of the sandbox's bounds.
const (
	DefaultMaxProcesses = 1024
	DefaultTmpSizeMB    = 1024
)

// Settings are the sandbox's resolved settings: its mode, the network,
// the writable and unreadable paths (absolute), what commands get of the
// environment, and its bounds.
type Settings struct {
	Mode    Mode
	Network bool
	// WritableRoots are the extra writable directories.
	WritableRoots []string
	// EnvKeep and EnvRemove change which variables commands do not get.
	EnvKeep, EnvRemove []string
	// Credentials are the files and directories commands may not read:
	// the defaults, deny_read added, allow_read removed.
	Credentials []string
	// MaxProcesses bounds one command's processes; TmpSize its own
	// temporary directory, in bytes (0: the host's /tmp, listed in
	// writable_roots, is used instead).
	MaxProcesses int
	TmpSize      int64
	// UnconfinedProjectHooks and UnconfinedPluginHooks are the person's
	// choice to run a repository's (a plugin's) hooks outside the sandbox.
	UnconfinedProjectHooks, UnconfinedPluginHooks bool
}

// Resolve resolves f with the command line's mode (--sandbox; "" takes
// f's) and network (--network; nil takes f's); home expands ~/, and where
// names the config file in messages ("config PATH"). An unknown mode given
// as a flag is ParseMode's error alone; every other error names where.
func Resolve(f File, mode string, network *bool, home, where string) (Settings, error) {
	m, err := ParseMode(cmp.Or(mode, f.Mode))
	if err != nil {
		if mode == "" {
			return Settings{}, fmt.Errorf("%s: sandbox: %w", where, err)
		}
		return Settings{}, err
	}
	s := Settings{Mode: m, Network: f.Network, EnvRemove: f.EnvRemove,
		UnconfinedProjectHooks: f.ProjectHooks != nil && !*f.ProjectHooks, UnconfinedPluginHooks: f.PluginHooks != nil && !*f.PluginHooks}
	if network != nil {
		s.Network = *network
	}
	where += ": sandbox"
	if s.WritableRoots, err = homePaths(f.WritableRoots, home, where+": writable root"); err != nil {
		return Settings{}, err
	}
	denyRead, err := homePaths(f.DenyRead, home, where+": deny_read")
	if err != nil {
		return Settings{}, err
	}
	allowRead, err := homePaths(f.AllowRead, home, where+": allow_read")
	if err != nil {
		return Settings{}, err
	}
	for _, c := range append(protect.DefaultCredentials(home), denyRead...) {
		if !slices.Contains(allowRead, c) && !slices.Contains(s.Credentials, c) {
			s.Credentials = append(s.Credentials, c)
		}
	}
	s.EnvKeep = append(slices.Clone(f.EnvKeep), f.EnvPassthrough...)
	for _, p := range append(slices.Clone(s.EnvKeep), f.EnvRemove...) {
		if _, err := filepath.Match(p, ""); err != nil || p == "" {
			return Settings{}, fmt.Errorf("%s: env pattern %q is not a valid pattern", where, p)
		}
	}
	if f.MaxProcesses < 0 || f.TmpSizeMB < 0 {
		return Settings{}, fmt.Errorf("%s: max_processes and tmp_size_mb must be positive", where)
	}
	s.MaxProcesses = cmp.Or(f.MaxProcesses, DefaultMaxProcesses)
	s.TmpSize = int64(cmp.Or(f.TmpSizeMB, DefaultTmpSizeMB)) << 20
	if slices.Contains(s.WritableRoots, "/tmp") {
		s.TmpSize = 0 // the person gave commands the host's /tmp
	}
	return s, nil
}

// homePaths expands the paths of a config list: absolute, or starting with
// ~/ (the home directory); what names the list in an error.
func homePaths(list []string, home, what string) ([]string, error) {
	var out []string
	for _, r := range list {
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			if home == "" {
				return nil, fmt.Errorf("%s %q: no home directory", what, r)
			}
			r = filepath.Join(home, strings.TrimPrefix(r, "~"))
		case !filepath.IsAbs(r):
			return nil, fmt.Errorf("%s %q must be absolute or start with ~/", what, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out, nil
}
