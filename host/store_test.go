package host

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// db_lock_wait in the config file is how long the session database's writes
// wait for another process's lock; a value that is not a positive duration
// is refused as a usage error naming the key, and the path still follows
// --db.
func TestDBLockWaitFromTheConfigFile(t *testing.T) {
	tests := []struct {
		config   string
		want     time.Duration
		refusing bool
	}{
		{"", 0, false},
		{`db_lock_wait = "30s"`, 30 * time.Second, false},
		{`db_lock_wait = "soon"`, 0, true},
		{`db_lock_wait = "-1m"`, 0, true},
	}
	for _, tt := range tests {
		var path string
		var wait time.Duration
		h, err := Open(context.Background(), Config{Flags: Flags{ConfigPath: writeConfig(t, tt.config), DB: "/tmp/x.db"}, Getenv: envOf(nil)})
		if err == nil {
			path, wait = h.db, h.lockWait
			h.Close()
		}
		var ue UsageError
		switch {
		case tt.refusing && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "db_lock_wait")):
			t.Errorf("%q: error %v, want a usage error naming db_lock_wait", tt.config, err)
		case !tt.refusing && (err != nil || wait != tt.want || path != "/tmp/x.db"):
			t.Errorf("%q: %q %v %v, want /tmp/x.db %v", tt.config, path, wait, err, tt.want)
		}
	}
}
