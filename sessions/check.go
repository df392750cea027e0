package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoDatabase is QuickCheck's error for a database file that does not
// exist yet.
var ErrNoDatabase = errors.New("no session database yet")

// QuickCheck runs SQLite's quick_check on the database file at path,
// read-only, without creating or migrating it. It returns nil when the file
// is sound; the problems SQLite lists (at most 10) wrapped in an error when
// it is damaged; SQLite's error when the file cannot be read as a database
// at all ("file is not a database"); ErrNoDatabase when it does not exist.
func QuickCheck(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return ErrNoDatabase
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(10)")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("quick_check found damage: %s", strings.Join(problems, "; "))
	}
	return nil
}
