package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// exportSession writes session id of store to path as agent sessions
// export writes it (exportOf, indented JSON), readable by its owner
// only: a session holds what the tools read.
func exportSession(ctx context.Context, store *sessions.Store, id, path string) error {
	conv, err := loadRecorded(ctx, store, id)
	if err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	exp, err := exportOf(conv)
	if err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	var b bytes.Buffer
	if err := writeIndentedJSON(&b, exp); err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	if err := writePrivate(path, b.Bytes()); err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	return nil
}

// writePrivate writes data to path as a file of mode 0600, whatever was
// there: it writes a temporary file in path's directory and renames it
// over path, so an existing file's mode is not kept and a symlink at path
// is replaced, never followed. On failure the temporary file is removed.
func writePrivate(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp") // mode 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil { // the umask may not loosen it; be explicit anyway
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// exportAtEnd writes sess to --export-session's file, when it names one,
// as a run ends with runErr, whatever its outcome, and returns the run's
// error: runErr, or the export's failure when the run had succeeded. A
// failure beside another one is only reported on errOut.
func exportAtEnd(ctx context.Context, o *Options, sess *host.Session, errOut io.Writer, runErr error) error {
	if o.ExportSession == "" {
		return runErr
	}
	err := exportSession(context.WithoutCancel(ctx), sess.Store(), sess.ID(), o.ExportSession)
	if err == nil {
		return runErr
	}
	if exitCode(runErr) == ExitOK {
		return err
	}
	fmt.Fprintln(errOut, "agent:", err)
	return runErr
}
