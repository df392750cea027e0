package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools/shell"
)

// exportSession writes session id of store to path as agent sessions
// export writes it (exportOf, indented JSON, credentials masked), readable
// by its owner only: a session holds what the tools read.
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
	if err := writePrivate(path, []byte(shell.MaskSecrets(b.String()))); err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	return nil
}

// writePrivate writes data to path. A regular file (or nothing, or a
// symlink) at path becomes a file of mode 0600: a temporary file written
// in path's directory is renamed over it, so an existing file's mode is
// not kept and a symlink is replaced, never followed. Anything else at
// path (a device such as /dev/null, a FIFO, a terminal) is written to as
// it is: renaming over it would replace a device file (as root, the
// machine's /dev/null). A directory is an error. Errors name path; on
// failure the temporary file is removed.
func writePrivate(path string, data []byte) (err error) {
	if fi, err := os.Lstat(path); err == nil {
		switch m := fi.Mode(); {
		case m.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case !m.IsRegular() && m&os.ModeSymlink == 0:
			return writeInPlace(path, data)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil { // the umask may not loosen it; be explicit anyway
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, cause(err))
	}
	return nil
}

// cause is err's own reason, without the temporary file's name that an
// *os.PathError or *os.LinkError carries.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// writeInPlace writes data to the file at path that is not a regular one
// (a device, a FIFO), without creating or truncating anything.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
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
