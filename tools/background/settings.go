package background

import "fmt"

// Defaults of the [background] table.
const (
	// DefaultMaxProcesses is how many background processes a session may
	// have running at once.
	DefaultMaxProcesses = 8
	// DefaultMaxOutputBytes caps each process's output file: 4 MiB.
	DefaultMaxOutputBytes = 4 << 20
	// DefaultReadLimit is the most output, in bytes, one bash_output call
	// returns (the newest; as much as a bash call's result).
	DefaultReadLimit = 30_000
)

// File is the config file's [background] table.
//
//	[background]
//	max_processes = 8           # background processes a session may run at once
//	max_output_mb = 4           # each one's output file; the oldest output is dropped first
type File struct {
	MaxProcesses int `toml:"max_processes"`
	MaxOutputMB  int `toml:"max_output_mb"`
}

// Settings are the resolved [background] settings.
type Settings struct {
	// MaxProcesses bounds the processes running at once in one session.
	MaxProcesses int
	// MaxOutputBytes caps each process's output file, in bytes.
	MaxOutputBytes int64
}

// ResolveSettings checks f and fills in the defaults; where names the
// config file in messages ("config PATH").
func ResolveSettings(f File, where string) (Settings, error) {
	s := Settings{MaxProcesses: DefaultMaxProcesses, MaxOutputBytes: DefaultMaxOutputBytes}
	switch {
	case f.MaxProcesses < 0:
		return s, fmt.Errorf("%s: [background] max_processes must be a positive number, got %d", where, f.MaxProcesses)
	case f.MaxOutputMB < 0:
		return s, fmt.Errorf("%s: [background] max_output_mb must be a positive number of MiB, got %d", where, f.MaxOutputMB)
	}
	if f.MaxProcesses > 0 {
		s.MaxProcesses = f.MaxProcesses
	}
	if f.MaxOutputMB > 0 {
		s.MaxOutputBytes = int64(f.MaxOutputMB) << 20
	}
	return s, nil
}
