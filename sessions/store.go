package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// busyTimeout is how long one statement waits for another connection or
// process that holds the database's write lock before SQLite fails it with
// "database is locked" (SQLITE_BUSY).
const busyTimeout = 5 * time.Second

// DefaultLockWait is how long, in all, a write transaction (and the first
// open's migration) keeps trying to begin while another process holds the
// write lock, unless Options.LockWait says otherwise: SQLite's busy handler
// polls rather than queues, so on a busy machine a process writing often
// can hold the lock at every poll for longer than busyTimeout, and a
// session's message must not be lost to it.
const DefaultLockWait = 2 * time.Minute

// Store is the session database. It is safe for concurrent use by several
// goroutines; other processes may use the same file at the same time.
type Store struct {
	// pool is the database; queries reach it through conn, which waits
	// for the open (ready closed; openErr its failure, the pool closed
	// then).
	pool    *sql.DB
	ready   chan struct{}
	openErr error
	path    string
	// writeMu serialises this process's write transactions, so that
	// goroutines queue here instead of polling SQLite's busy handler; the
	// busy timeout then only arbitrates between processes.
	writeMu sync.Mutex
	// vecs are the message vectors of one embedding model in memory
	// (NearestMessages), guarded by vecMu with vecLoad, the load under way
	// in the background; vecWG waits for it, bg stops it (Close).
	vecMu   sync.Mutex
	vecs    vectorCache
	vecLoad *vectorLoad
	vecWG   sync.WaitGroup
	bg      context.Context
	bgStop  context.CancelFunc
	// flushing is the background write of the log flushBehind begins;
	// Close and Leave wait for it.
	flushing sync.WaitGroup
	// ckpt is closed once the checkpoint an open starts in the background
	// (checkpointBehind) has ended, or as soon as the open has ended when
	// it starts none: writes, Leave and Close wait for it.
	ckpt chan struct{}
	// now is the clock for created and updated times; tests replace it.
	now func() time.Time
	// undoFault, when set by a test, makes Undo fail to put back a path.
	undoFault func(path string) error
	// onBusy, when set by a test, is called each time a write transaction
	// could not begin for another's lock and is about to try again.
	onBusy func()
	// beforeCheckpoint, when set by a test, is called by the checkpoint
	// checkpointBehind starts, before it runs; onCheckpointWait is called
	// by a write that is about to wait for it.
	beforeCheckpoint, onCheckpointWait func()
	// lockWait is Options.LockWait, DefaultLockWait when that is 0.
	lockWait time.Duration
	// stmts are the write statements prepared once (stmts.go), guarded
	// by writeMu and closed with the database.
	stmts map[string]*sql.Stmt
	// recorders are the sessions' recorders handed out (Recorder), one
	// per session, guarded by recMu.
	recMu     sync.Mutex
	recorders map[string]*Recorder
}

// DefaultPath returns where the database lives when nothing else is
// configured: $XDG_DATA_HOME/agent/agent.db, else
// $HOME/.local/share/agent/agent.db (on Windows %USERPROFILE% stands in for
// $HOME). It returns "" when none of those variables is set. getenv is
// usually os.Getenv.
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agent", "agent.db")
	}
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "share", "agent", "agent.db")
}

// Open opens the session database at path, creating it and its parent
// directory (mode 0700; the file itself 0600) when they do not exist, and
// brings its schema up to date. Each migration runs in its own transaction,
// so a failure leaves the previous version intact.
//
// Errors are wrapped as "opening session database PATH: ...": a database
// written by a newer agent gives ErrNewerSchema; a file that is not a SQLite
// database, one that stays locked by another process for longer than two
// minutes (DefaultLockWait), or a directory that cannot be written give SQLite's or
// the OS's error. ctx bounds the migration work only.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// Options are OpenWith's.
type Options struct {
	// IndexProgress, when not nil, is told how the search index of the
	// messages stored before it existed is being built (the first open
	// after the upgrade that added it): done of total messages, after each
	// batch, from 0 to total. It is not called when there is nothing to
	// build.
	IndexProgress func(done, total int)
	// IndexBatch is how many messages one write transaction of that build
	// indexes; 0 means 5,000, about a second's work, so that other
	// processes' writes wait little and progress is shown often.
	IndexBatch int
	// LockWait is how long a write (and the open's migration) waits, in
	// all, while another process holds the database's write lock, before
	// it fails with SQLite's "database is locked"; 0 means
	// DefaultLockWait. Each try waits SQLite's busy timeout (5 s).
	LockWait time.Duration
}

// OpenWith is Open with options: it opens the database, migrates it, and
// builds what is left of the search index (see Options.IndexProgress).
// An open cancelled while it builds the index leaves the database whole;
// the next open goes on where this one stopped.
func OpenWith(ctx context.Context, path string, o Options) (*Store, error) {
	s, err := Start(ctx, path, o)
	if err != nil {
		return nil, err
	}
	// The open stops when ctx is done: it is waited for, so that its own
	// error is the one returned.
	if <-s.ready; s.openErr != nil {
		return nil, s.openErr
	}
	return s, nil
}

// Start is OpenWith that returns the store as soon as the file exists:
// the rest of the open (SQLite's connection, which reads the schema and
// recovers the write-ahead log, the migration, the search index's
// backlog) goes on in the background, ctx bounding it, and every query
// of the store waits for it. So a process can build what does not read
// the store meanwhile (the agent, about 2 ms of a -p run's start; an open
// took as long). Ready waits for the open and returns its error. Errors
// found before (no path, a directory or file that cannot be made) return
// at once. Each is wrapped as "opening session database PATH: ...".
func Start(ctx context.Context, path string, o Options) (*Store, error) {
	return start(ctx, path, busyTimeout, o)
}

// Ready waits for the open Start began, or until ctx is done: it returns
// the open's error (Open's errors), or ctx's. After an open that failed,
// the store's queries fail and Close does nothing.
func (s *Store) Ready(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.openErr
	case <-ctx.Done():
		return fmt.Errorf("opening session database %s: %w", s.path, ctx.Err())
	}
}

// openingKey marks the context of the open's own queries, which must not
// wait for the open (conn).
type openingKey struct{}

// conn is the database for a query made with ctx: it waits for the open
// first (a done ctx stops the wait, and the query then fails with ctx's
// error), unless ctx is the open's own.
func (s *Store) conn(ctx context.Context) *sql.DB {
	if ctx.Value(openingKey{}) == nil {
		select {
		case <-s.ready:
		case <-ctx.Done():
		}
	}
	return s.pool
}

// start is Start with busy, each statement's busy timeout (busyTimeout
// but in tests).
func start(ctx context.Context, path string, busy time.Duration, o Options) (*Store, error) {
	s, err := create(path, busy, o.LockWait)
	if err != nil {
		return nil, fmt.Errorf("opening session database %s: %w", path, err)
	}
	s.launch(ctx, o)
	return s, nil
}

// launch goes on with the open of s in the background (Start).
func (s *Store) launch(ctx context.Context, o Options) {
	path := s.path
	s.flushBehind()
	go func() {
		defer close(s.ready)
		octx := context.WithValue(ctx, openingKey{}, true)
		err := s.open(octx)
		if err == nil {
			err = s.fillIndex(octx, o.IndexProgress, o.IndexBatch)
		}
		if err != nil {
			s.openErr = fmt.Errorf("opening session database %s: %w", path, err)
			s.bgStop()
			s.pool.Close()
			close(s.ckpt)
			return
		}
		s.checkpointBehind()
	}()
}

// create makes the database file at path (and its directory) when they do
// not exist, and the store of it, not connected yet; lockWait is the
// Options' LockWait.
func create(path string, busy, lockWait time.Duration) (*Store, error) {
	if lockWait <= 0 {
		lockWait = DefaultLockWait
	}
	if path == "" {
		return nil, errors.New("no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, err
	}
	// Create the file ourselves so that it is private: SQLite would create
	// it (and its -wal and -shm files, which copy its mode) as 0644.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	} else {
		f.Close()
	}
	db, err := sql.Open("sqlite", dsn(abs, busy))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	s := &Store{pool: db, ready: make(chan struct{}), ckpt: make(chan struct{}), path: abs, now: time.Now, lockWait: lockWait}
	s.bg, s.bgStop = context.WithCancel(context.Background())
	return s, nil
}

// open connects to the database and migrates it.
func (s *Store) open(ctx context.Context) error {
	// Two processes opening a new database at once both switch it to WAL
	// mode; SQLite resolves that race by failing one of them with
	// SQLITE_BUSY at once, without waiting, and the other's migration may
	// hold the write lock for long on a busy machine: retry for lockWait.
	deadline := time.Now().Add(s.lockWait)
	var err error
	for {
		err = s.pool.PingContext(ctx)
		if err == nil {
			err = s.migrate(ctx)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(time.Duration(10+rand.IntN(40)) * time.Millisecond):
			continue
		}
		break
	}
	return err
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

const sqliteBusy = 5 // SQLITE_BUSY, the primary result code of "database is locked"

// dsn is the driver's connection string for the database file at abs: a
// file: URI (so that any character of the path is allowed) with the settings
// every connection applies when it opens. synchronous=NORMAL in WAL mode
// keeps every committed transaction across a crash of the process (kill -9);
// only a power failure may lose the last ones, never corrupt the file.
// _txlock=immediate makes each write transaction take the write lock when it
// begins, so two writers never deadlock upgrading a read lock.
func dsn(abs string, busy time.Duration) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/...
	}
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	q.Set("_pragma", fmt.Sprintf("journal_size_limit(%d)", walBehind))
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. Writes in flight finish first, and so does
// the background write of the log (flushBehind); a load of vectors and a
// checkpoint in the background stop. SQLite's close of the
// last connection to the file copies the write-ahead log into it and
// syncs both; a process about to exit calls Leave instead.
func (s *Store) Close() error {
	defer s.flushing.Wait()
	if <-s.ready; s.openErr != nil {
		return nil
	}
	s.bgStop()
	s.vecWG.Wait()
	<-s.ckpt
	s.indexBehind()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for _, st := range s.stmts {
		st.Close()
	}
	return s.pool.Close()
}

// Leave is Close for a process that exits once it returns: writes in
// flight finish, the checkpoint started at open (checkpointBehind) and the
// background write of the log (flushBehind) are waited for, a load of vectors stops, but the database is left open for
// the exit to drop. So SQLite does not copy the write-ahead log into the
// database file and sync both (about 6 ms of a five-step -p run;
// BENCHMARKS.md): the log stays, and a later open recovers it, as after a
// crash of the process, and checkpoints it when it has grown. Nothing
// committed is lost to a crash of the process: each commit wrote the log
// before it returned. A power failure before the next checkpoint (or the
// kernel's own writeback) may lose the last runs' writes, never corrupt
// the file: synchronous=NORMAL's promise (dsn), which the close's syncs
// went beyond. A write after Leave still succeeds. A process that goes on
// running calls Close, which frees the connections.
func (s *Store) Leave() {
	defer s.flushing.Wait()
	if <-s.ready; s.openErr != nil {
		return
	}
	<-s.ckpt
	s.bgStop()
	s.vecWG.Wait()
	s.indexBehind()
	s.writeMu.Lock()
	s.writeMu.Unlock()
}

// indexBehind is what a store's close does for the search index: it
// indexes the messages written since it was last brought up to date once
// there are indexAtClose of them. A failure (the write lock not had within
// indexWait) leaves them to the next search or close.
func (s *Store) indexBehind() {
	ctx, cancel := context.WithTimeout(context.Background(), indexWait)
	defer cancel()
	s.indexNew(ctx, indexAtClose)
}

// write runs fn in one immediate transaction, serialised with this process's
// other writes, and commits it when fn returns nil.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writeWith(ctx, nil, fn)
}

// writeWith is write for an fn that runs queries through stmt: those not
// prepared yet are prepared before the transaction begins, on the
// connection it then takes (the pool hands out the one used last), rather
// than on another while the transaction holds it, which made each one
// parsed twice and a second connection opened for it.
func (s *Store) writeWith(ctx context.Context, queries []string, fn func(tx *sql.Tx) error) error {
	// The open's own writes (the migration, the index backlog) take
	// writeMu: another write waits for the open before it does.
	// Another write waits for the checkpoint the open may start as well
	// (checkpointBehind).
	if ctx.Value(openingKey{}) == nil {
		if s.onCheckpointWait != nil {
			select {
			case <-s.ckpt:
			default:
				s.onCheckpointWait()
			}
		}
		select {
		case <-s.ckpt:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for _, q := range queries {
		if _, err := s.prepared(ctx, q); err != nil {
			return err
		}
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// begin begins a write transaction, trying again for s.lockWait while
// another process holds the write lock (each try waits the busy timeout);
// it stops at once when ctx is done. Nothing is written before it
// succeeds, so trying again is safe.
func (s *Store) begin(ctx context.Context) (*sql.Tx, error) {
	deadline := time.Now().Add(s.lockWait)
	for {
		tx, err := s.conn(ctx).BeginTx(ctx, nil)
		if err == nil || !isBusy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return tx, err
		}
		if s.onBusy != nil {
			s.onBusy()
		}
	}
}

// millis converts t to the stored form: milliseconds since the Unix epoch.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis converts a stored time back; a NULL (invalid) value is the zero
// time.
func fromMillis(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64)
}
