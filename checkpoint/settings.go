package checkpoint

import "fmt"

// File is the [checkpoints] section of the config file.
type File struct {
	// Enabled turns checkpoints off when false; nil is on.
	Enabled *bool `toml:"enabled"`
	// MaxFileMB is the size cap of a file in a checkpoint, in MiB.
	MaxFileMB int `toml:"max_file_mb"`
}

// Settings are the resolved [checkpoints] settings.
type Settings struct {
	// Enabled says whether every prompt takes a checkpoint.
	Enabled bool
	// MaxFileBytes is the size cap of a file in a checkpoint, in bytes.
	MaxFileBytes int64
}

// ResolveSettings checks f and fills in the defaults (on, 10 MiB); where
// names the config file in messages ("config PATH").
func ResolveSettings(f File, where string) (Settings, error) {
	s := Settings{Enabled: f.Enabled == nil || *f.Enabled, MaxFileBytes: DefaultMaxFileBytes}
	if f.MaxFileMB < 0 {
		return s, fmt.Errorf("%s: [checkpoints] max_file_mb must be a positive number of MiB, got %d", where, f.MaxFileMB)
	}
	if f.MaxFileMB > 0 {
		s.MaxFileBytes = int64(f.MaxFileMB) << 20
	}
	return s, nil
}
