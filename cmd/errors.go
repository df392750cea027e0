package cmd

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/loop"
)

// Exit codes of the agent command, the one place they are decided.
const (
	ExitOK               = 0   // the model answered
	ExitRuntime          = 1   // the provider failed after retries, or another runtime error
	ExitUsage            = 2   // bad flags, arguments or configuration
	ExitMaxSteps         = 3   // the step limit was reached before a final answer
	ExitBudget           = 4   // the spend cap was reached before a final answer; the partial answer is printed
	ExitStructuredOutput = 5   // the answers never matched --json-schema, structured_output_retries corrections included
	ExitInterrupted      = 130 // cancelled by SIGINT or SIGTERM
	ExitBrokenPipe       = 141 // stdout's reader went away (128+SIGPIPE, as a shell reports cat and git)
)

// errNoPrompt explains how to give a prompt.
var errNoPrompt = errors.New(`no prompt: give one as an argument (agent -p "PROMPT") or pipe it (echo PROMPT | agent -p)`)

// usageError marks an error the person can fix by changing the command line
// or the configuration (the host's too).
type usageError = host.UsageError

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error { return usageError{Err: fmt.Errorf(format, args...)} }

// turnError carries a turn's stop reason to the exit code. Its message is
// empty when the turn's output already said everything.
type turnError struct {
	reason loop.StopReason
	err    error
}

func (e turnError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e turnError) Unwrap() error { return e.err }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	var ue usageError
	var te turnError
	switch {
	case err == nil:
		return ExitOK
	case brokenPipe(err):
		return ExitBrokenPipe
	case errors.As(err, &te):
		switch te.reason {
		case loop.StopAnswered:
			return ExitOK
		case loop.StopMaxSteps:
			return ExitMaxSteps
		case loop.StopStructuredOutput:
			return ExitStructuredOutput
		case loop.StopBudget:
			return ExitBudget
		case loop.StopCancelled:
			return ExitInterrupted
		}
		return ExitRuntime
	case errors.As(err, &ue):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitRuntime
}

// brokenPipe reports whether err is a write to a pipe whose reader went
// away (agent sessions show ID | head): the agent then exits quietly, as
// cat and git do.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
