package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// indexBatch is how many messages (by id) one transaction of fillIndex
// indexes unless Options.IndexBatch says otherwise.
const indexBatch = 5000

// fillIndex indexes the messages stored before the search index existed,
// in batches of batch messages (0: indexBatch), newest first, one write transaction each,
// telling progress (when not nil) after each. The backlog's state is in
// the database (fts_backlog), so another process opening it meanwhile
// shares the work and an interrupted build goes on at the next open.
func (s *Store) fillIndex(ctx context.Context, progress func(done, total int), batch int) error {
	if batch <= 0 {
		batch = indexBatch
	}
	// Nearly every open finds no backlog: a read says so without taking
	// the write lock.
	var n int
	if err := s.conn(ctx).QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fts_backlog'`).Scan(&n); err != nil {
		return fmt.Errorf("building the search index: %w", err)
	}
	if n == 0 {
		return nil
	}
	total := -1
	for {
		var upto int64
		more := false
		err := s.write(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fts_backlog'`).Scan(&n); err != nil || n == 0 {
				return err
			}
			err := tx.QueryRowContext(ctx, `SELECT upto FROM fts_backlog`).Scan(&upto)
			if errors.Is(err, sql.ErrNoRows) {
				upto = 0
			} else if err != nil {
				return err
			}
			if upto <= 0 {
				_, err := tx.ExecContext(ctx, `DROP TABLE fts_backlog`)
				return err
			}
			if total < 0 {
				total = int(upto)
				if progress != nil {
					progress(0, total)
				}
			}
			lo := max(upto-int64(batch), 0)
			// A message written or changed since the upgrade is indexed
			// already, by the triggers.
			_, err = tx.ExecContext(ctx, `INSERT INTO messages_fts (rowid, body)
				SELECT id, body FROM message_text WHERE id > ?1 AND id <= ?2 AND body IS NOT NULL
				AND id NOT IN (SELECT rowid FROM messages_fts WHERE rowid > ?1 AND rowid <= ?2)`, lo, upto)
			if err != nil {
				return err
			}
			upto = lo
			more = true
			_, err = tx.ExecContext(ctx, `UPDATE fts_backlog SET upto = ?`, upto)
			return err
		})
		if err != nil {
			return fmt.Errorf("building the search index: %w", err)
		}
		if !more {
			return nil
		}
		if progress != nil {
			progress(total-int(upto), total)
		}
	}
}
