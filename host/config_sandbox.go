package host

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/protect"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// sandboxConfig is the [sandbox] table: what commands may do.
type sandboxConfig struct {
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
	// defaultMaxProcesses.
	MaxProcesses int `toml:"max_processes"`
	// TmpSizeMB bounds the commands' own temporary directory, in MiB;
	// default defaultTmpSizeMB.
	TmpSizeMB int `toml:"tmp_size_mb"`
}

// Defaults of the sandbox's bounds.
const (
	defaultMaxProcesses = 1024
	defaultTmpSizeMB    = 1024
)

// resolveSandbox fills the sandbox and permission settings: flag >
// config > default (workspace-write, network off). On an error it sets
// nothing, so s.Sandbox stays "" (agent doctor reads it so).
func resolveSandbox(s *Settings, o *Flags, fc fileConfig, path string) error {
	mode, err := sandbox.ParseMode(first(o.Sandbox, fc.Sandbox.Mode))
	if err != nil {
		if o.Sandbox == "" {
			return usagef("config %s: sandbox: %w", path, err)
		}
		return UsageError{Err: err}
	}
	network := fc.Sandbox.Network
	if o.NetworkSet {
		network = o.Network
	}
	home, _ := os.UserHomeDir()
	roots, err := homePaths(fc.Sandbox.WritableRoots, home, "config "+path+": sandbox: writable root")
	if err != nil {
		return err
	}
	denyRead, err := homePaths(fc.Sandbox.DenyRead, home, "config "+path+": sandbox: deny_read")
	if err != nil {
		return err
	}
	allowRead, err := homePaths(fc.Sandbox.AllowRead, home, "config "+path+": sandbox: allow_read")
	if err != nil {
		return err
	}
	s.Credentials = nil
	for _, c := range append(protect.DefaultCredentials(home), denyRead...) {
		if !slices.Contains(allowRead, c) && !slices.Contains(s.Credentials, c) {
			s.Credentials = append(s.Credentials, c)
		}
	}
	keep := append(slices.Clone(fc.Sandbox.EnvKeep), fc.Sandbox.EnvPassthrough...)
	for _, p := range append(slices.Clone(keep), fc.Sandbox.EnvRemove...) {
		if _, err := filepath.Match(p, ""); err != nil || p == "" {
			return usagef("config %s: sandbox: env pattern %q is not a valid pattern", path, p)
		}
	}
	s.Sandbox, s.Network, s.WritableRoots = mode, network, roots
	s.EnvKeep, s.EnvRemove = keep, fc.Sandbox.EnvRemove
	if fc.Sandbox.MaxProcesses < 0 || fc.Sandbox.TmpSizeMB < 0 {
		return usagef("config %s: sandbox: max_processes and tmp_size_mb must be positive", path)
	}
	s.MaxProcesses = cmp.Or(fc.Sandbox.MaxProcesses, defaultMaxProcesses)
	s.TmpSize = int64(cmp.Or(fc.Sandbox.TmpSizeMB, defaultTmpSizeMB)) << 20
	if slices.Contains(roots, "/tmp") {
		s.TmpSize = 0 // the person gave commands the host's /tmp
	}
	s.Allow, s.Deny = fc.Permissions.Allow, fc.Permissions.Deny
	s.WebPrivateHosts = fc.WebFetch.PrivateHosts
	return nil
}

// homePaths expands the paths of a config list: absolute, or starting with
// ~/ (the home directory); what names the list in an error.
func homePaths(list []string, home, what string) ([]string, error) {
	var out []string
	for _, r := range list {
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			if home == "" {
				return nil, usagef("%s %q: no home directory", what, r)
			}
			r = filepath.Join(home, strings.TrimPrefix(r, "~"))
		case !filepath.IsAbs(r):
			return nil, usagef("%s %q must be absolute or start with ~/", what, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out, nil
}
