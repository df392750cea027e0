package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// defaultConfigPath is $XDG_CONFIG_HOME/agent/config.toml, or
// ~/.config/agent/config.toml when XDG_CONFIG_HOME is unset.
func defaultConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agent", "config.toml")
}

// loadFileConfig reads the config file at path. A missing file is an empty
// configuration unless the person named it explicitly.
func loadFileConfig(path string, explicit bool) (fileConfig, error) {
	var fc fileConfig
	if path == "" {
		return fc, nil
	}
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return fc, nil
		}
		return fc, usagef("config %s: %w", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		return fc, usagef("config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	return fc, nil
}
