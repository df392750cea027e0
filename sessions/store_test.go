package sessions_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-dev/agent/sessions"
)

// openStore opens a fresh database in a temporary directory.
func openStore(t testing.TB) *sessions.Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "data", "agent.db"))
}

func openAt(t testing.TB, path string) *sessions.Store {
	t.Helper()
	s, err := sessions.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// migrated writes a database at schema version (its first version
// migrations, then the rows), opens it with the current code and checks that
// it was migrated to the newest schema.
func migrated(t *testing.T, version int, rows ...string) *sessions.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.db")
	db, err := sql.Open("sqlite", path)
	must(t, err)
	var stmts []string
	for v := range version {
		stmts = append(stmts, sessions.SchemaStep(v))
	}
	stmts = append(stmts, fmt.Sprintf("PRAGMA user_version = %d", version))
	for _, q := range append(stmts, rows...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("building a version %d database: %v", version, err)
		}
	}
	must(t, db.Close())
	s := openAt(t, path)
	if v := pragma(t, s, "user_version"); v != strconv.Itoa(sessions.Migrations()) {
		t.Errorf("user_version after migrating from %d = %s", version, v)
	}
	return s
}

func pragma(t *testing.T, s *sessions.Store, name string) string {
	t.Helper()
	return dbPragma(t, sessions.DB(s), name)
}

func dbPragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenNewDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := openAt(t, filepath.Join(dir, "agent.db"))
	for name, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "5000",
		"synchronous":  "1", // NORMAL
		"user_version": strconv.Itoa(sessions.Migrations()),
	} {
		if got := pragma(t, s, name); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", name, got, want)
		}
	}
	for _, table := range []string{"sessions", "messages", "tool_calls", "file_snapshots"} {
		var n int
		if err := sessions.DB(s).QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, s.Path(): 0o600} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("mode of %s = %v, want %v", path, fi.Mode(), want)
			}
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	s, err := sessions.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := s.Create(ctx, sessions.NewSession{Dir: "/w", Model: "m", Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Recorder(ss.ID).AppendMessage(ctx, userMsg("hi"), zeroUsage); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path)
	got, err := s.Get(ctx, ss.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "first" || got.Messages != 1 {
		t.Errorf("reopened session = %+v", got)
	}
	if v := pragma(t, s, "user_version"); v != strconv.Itoa(sessions.Migrations()) {
		t.Errorf("user_version after reopening = %s", v)
	}
}

func TestOpenNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	s := openAt(t, path)
	newer := sessions.Migrations() + 1
	if _, err := sessions.DB(s).Exec("PRAGMA user_version = " + strconv.Itoa(newer)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := sessions.Open(ctx, path)
	if !errors.Is(err, sessions.ErrNewerSchema) {
		t.Fatalf("Open of a newer schema: %v, want ErrNewerSchema", err)
	}
	for _, want := range []string{"opening session database " + path, "schema version " + strconv.Itoa(newer)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// The database was not touched: still the newer version.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := dbPragma(t, db, "user_version"); v != strconv.Itoa(newer) {
		t.Errorf("user_version = %s after a refused open", v)
	}
}

func TestOpenCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	garbage := []byte(strings.Repeat("this is not a database, just garbage. ", 200))
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sessions.Open(context.Background(), path)
	if err == nil {
		t.Fatal("Open of a corrupt file: no error")
	}
	for _, want := range []string{"opening session database " + path, "not a database"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestOpenUnwritableDirectory(t *testing.T) {
	// A file where the data directory should be: creating it fails even for
	// root, which ignores permission bits.
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "data"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "data", "agent", "agent.db")
	_, err := sessions.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "opening session database "+path) {
		t.Fatalf("Open under a file: %v", err)
	}
}

func TestOpenEmptyExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	if v := pragma(t, s, "user_version"); v != strconv.Itoa(sessions.Migrations()) {
		t.Errorf("user_version = %s", v)
	}
}

func TestDefaultPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	abs := filepath.Join(string(filepath.Separator)+"x", "data")
	home := filepath.Join(string(filepath.Separator)+"home", "u")
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_DATA_HOME": abs, "HOME": home}, filepath.Join(abs, "agent", "agent.db")},
		{map[string]string{"XDG_DATA_HOME": "relative", "HOME": home}, filepath.Join(home, ".local", "share", "agent", "agent.db")},
		{map[string]string{"HOME": home}, filepath.Join(home, ".local", "share", "agent", "agent.db")},
		{map[string]string{"USERPROFILE": home}, filepath.Join(home, ".local", "share", "agent", "agent.db")},
		{map[string]string{}, ""},
	} {
		if runtime.GOOS == "windows" {
			t.Skip("absolute paths differ on Windows")
		}
		if got := sessions.DefaultPath(env(tt.env)); got != tt.want {
			t.Errorf("DefaultPath(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestOpenOddPath(t *testing.T) {
	name := "a b%20c#d?e é"
	if runtime.GOOS == "windows" {
		name = "a b%20c#d é"
	}
	path := filepath.Join(t.TempDir(), name, "agent.db")
	s := openAt(t, path)
	create(t, s, "/w", "")
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at %s: %v", path, err)
	}
}
