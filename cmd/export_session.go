package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

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
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("--export-session: %w", err)
	}
	return nil
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
