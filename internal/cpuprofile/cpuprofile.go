// Package cpuprofile writes a CPU profile of the whole process when the
// environment asks for one: the profiles bench/pgo.sh gathers from
// representative runs and merges into agent.pgo, the profile the agent is
// built with (go build -pgo=agent.pgo: profile-guided optimization).
package cpuprofile

import (
	"os"
	"runtime/pprof"
)

// Env is the environment variable that names the file Start writes the
// profile to.
const Env = "AGENT_CPUPROFILE"

// FromEnv is Start with the path Env names, which it then takes out of the
// process's environment: a command the agent runs (an agent among them)
// inherits no Env, so it does not write its own profile over this one.
func FromEnv() (stop func()) {
	path := os.Getenv(Env)
	os.Unsetenv(Env)
	return Start(path)
}

// Start begins profiling the process's CPU (pprof's format, gzipped
// protocol buffers, 100 samples a second) into the file at path, which it
// creates or truncates, and returns the function that stops the profile
// and closes the file. An empty path profiles nothing. A file that cannot
// be created, or a profile already running, is reported on stderr and the
// process goes on unprofiled.
func Start(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		os.Stderr.WriteString("agent: " + Env + ": " + err.Error() + "\n")
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Stderr.WriteString("agent: " + Env + ": " + err.Error() + "\n")
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
