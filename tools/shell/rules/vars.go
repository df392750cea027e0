package rules

import "strings"

// dangerousVars are variables that change which programs run, or make
// programs that an allow rule names run other code: the command search path,
// shell start-up files and hooks, the dynamic linker, interpreters' and
// compilers' injection points, and helpers that tools start (pagers,
// editors, git's config and hooks). The list cannot be complete; it covers
// the well-known ones. IFS is not in it: it changes only how expansions are
// split, and words that are expanded never match a rule word anyway.
var dangerousVars = map[string]bool{
	"PATH": true, "ENV": true, "BASH_ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
	"PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS4": true, "CDPATH": true,
	"BASH_LOADABLES_PATH": true, "EXECIGNORE": true, "SHELL": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true, "NODE_OPTIONS": true, "NODE_PATH": true,
	"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true,
	"GOFLAGS": true, "GOENV": true, "GOROOT": true, "GOTOOLCHAIN": true, "CC": true, "CXX": true,
	"CGO_CFLAGS": true, "CGO_CPPFLAGS": true, "CGO_CXXFLAGS": true, "CGO_FFLAGS": true, "CGO_LDFLAGS": true,
	"RUSTC_WRAPPER": true, "RUSTC": true, "RUSTFLAGS": true, "MAKEFLAGS": true, "MAKE": true,
}

// dangerousPrefixes are prefixes of families of such variables.
var dangerousPrefixes = []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "CARGO_", "npm_config_", "NPM_CONFIG_"}

// dangerousVar reports whether setting the variable name can change what a
// command runs.
func dangerousVar(name string) bool {
	if dangerousVars[name] {
		return true
	}
	for _, p := range dangerousPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
