package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuickCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := QuickCheck(ctx, filepath.Join(dir, "none.db")); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("QuickCheck created the database")
	}

	path := filepath.Join(dir, "agent.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := st.Create(ctx, NewSession{Title: strings.Repeat("t", 2000), Dir: dir, Model: "m"}); err != nil {
			t.Fatal(i, err)
		}
	}
	st.Close()
	if err := QuickCheck(ctx, path); err != nil {
		t.Fatalf("a sound database: %v", err)
	}

	// Overwrite the middle of the file: b-tree pages become garbage.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096 * 3; i < len(data)-4096 && i < 4096*6; i++ {
		data[i] = byte(i * 7)
	}
	damaged := filepath.Join(dir, "damaged.db")
	os.WriteFile(damaged, data, 0o600)
	if err := QuickCheck(ctx, damaged); err == nil {
		t.Error("a damaged database passed")
	}

	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 500)), 0o600)
	if err := QuickCheck(ctx, garbage); err == nil {
		t.Error("a file that is not a database passed")
	}
}
