package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/tools/shell/sandbox"
)

// toolCache is a directory a build tool writes to outside the working
// directory, which a sandboxed command cannot write unless writable_roots
// lists it: go build fails with "read-only file system" on its cache.
type toolCache struct {
	tool, what, dir string
}

// toolCaches are the caches that exist of the tools found on PATH
// (lookPath), where getenv says they are.
func toolCaches(getenv func(string) string, lookPath func(string) (string, error)) []toolCache {
	home := getenv("HOME")
	if home == "" {
		return nil
	}
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	cacheHome := or(getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	gopath := or(strings.Split(getenv("GOPATH"), string(os.PathListSeparator))[0], filepath.Join(home, "go"))
	all := []toolCache{
		{"go", "build cache", or(getenv("GOCACHE"), filepath.Join(cacheHome, "go-build"))},
		{"go", "module cache", or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod"))},
		{"npm", "cache", or(getenv("npm_config_cache"), filepath.Join(home, ".npm"))},
		{"cargo", "registry", filepath.Join(or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo")), "registry")},
		{"pip", "cache", or(getenv("PIP_CACHE_DIR"), filepath.Join(cacheHome, "pip"))},
		{"gradle", "caches", filepath.Join(or(getenv("GRADLE_USER_HOME"), filepath.Join(home, ".gradle")), "caches")},
		{"mvn", "repository", filepath.Join(home, ".m2", "repository")},
	}
	var out []toolCache
	for _, c := range all {
		if _, err := lookPath(c.tool); err != nil {
			continue
		}
		if fi, err := os.Stat(c.dir); err == nil && fi.IsDir() {
			out = append(out, c)
		}
	}
	return out
}

// printToolCaches says which tools' caches a sandboxed command cannot
// write (in workspace-write mode, those outside the working directory and
// writable_roots), and the writable_roots line that lets them.
func printToolCaches(line doctorLine, s host.Settings, dir string, getenv func(string) string, lookPath func(string) (string, error)) {
	if s.Sandbox.Mode != sandbox.WorkspaceWrite {
		return
	}
	home := getenv("HOME")
	shown := func(dir string) string {
		if home != "" && strings.HasPrefix(dir, home+string(filepath.Separator)) {
			return "~" + dir[len(home):]
		}
		return dir
	}
	var blocked []string
	var roots []string // the config's roots, then the caches: what writable_roots becomes
	for _, r := range s.Sandbox.WritableRoots {
		roots = append(roots, fmt.Sprintf("%q", shown(r)))
	}
	for _, c := range toolCaches(getenv, lookPath) {
		if within(c.dir, append([]string{dir}, s.Sandbox.WritableRoots...)) {
			continue
		}
		blocked = append(blocked, fmt.Sprintf("%s (%s %s)", shown(c.dir), c.tool, c.what))
		roots = append(roots, fmt.Sprintf("%q", shown(c.dir)))
	}
	if len(blocked) == 0 {
		line("tool caches", "the caches of the tools found are writable by commands")
		return
	}
	line("tool caches", "not writable by sandboxed commands: %s", strings.Join(blocked, ", "))
	line("", "a build that writes them fails with \"read-only file system\"; to let it, the config's [sandbox] table says (README: Sandbox and permissions):")
	line("", "[sandbox]")
	line("", "writable_roots = [%s]", strings.Join(roots, ", "))
}

// within reports whether path is one of roots or under one.
func within(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
