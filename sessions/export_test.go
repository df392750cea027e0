package sessions

import (
	"database/sql"
	"time"
)

// SetClock replaces the store's clock for created and updated times.
func SetClock(s *Store, now func() time.Time) { s.now = now }

// DB exposes the database for checks of the stored rows.
func DB(s *Store) *sql.DB { return s.db }

// Migrations returns how many schema versions this binary knows.
func Migrations() int { return len(migrations) }
