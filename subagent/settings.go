package subagent

import "fmt"

// File is the config file's [subagents] table.
//
//	[subagents]
//	max_parallel = 4            # task calls' children running at once
type File struct {
	// MaxParallel bounds the children running at once; 0 is
	// DefaultMaxParallel.
	MaxParallel int `toml:"max_parallel"`
}

// Settings are the subagents' resolved settings.
type Settings struct {
	// MaxParallel bounds the children running at once (0: the default).
	MaxParallel int
}

// ResolveSettings checks f; where names the config file in messages
// ("config PATH").
func ResolveSettings(f File, where string) (Settings, error) {
	if f.MaxParallel < 0 {
		return Settings{}, fmt.Errorf("%s: [subagents] max_parallel must be a positive number, got %d", where, f.MaxParallel)
	}
	return Settings(f), nil
}
