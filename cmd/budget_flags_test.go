package cmd

import (
	"bytes"
	"errors"
	"testing"

	"github.com/agent-dev/agent/loop"
)

// --max-budget-usd and --max-tokens-total reach the host's flags, also as
// the Claude Agent SDK passes them (--max-budget-usd=VALUE).
func TestSpendCapFlags(t *testing.T) {
	o, err := parse(t, Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "-p", "--max-budget-usd=0.25", "--max-tokens-total", "5000", "hi")
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxBudgetUSD != 0.25 || o.MaxTokensTotal != 5000 {
		t.Errorf("options: budget %g, tokens %d", o.MaxBudgetUSD, o.MaxTokensTotal)
	}
}

// A turn stopped at its spend cap exits with 4, and prints nothing more
// on stderr: the answer's last line says why.
func TestATurnAtItsBudgetExitsWith4(t *testing.T) {
	err := turnEnd(loop.Done{Reason: loop.StopBudget, Answer: "partial\n\nStopped: cap.", Err: errors.New("cap")})
	if exitCode(err) != ExitBudget || err.Error() != "" {
		t.Errorf("exit %d, message %q; want 4 and none", exitCode(err), err.Error())
	}
}
