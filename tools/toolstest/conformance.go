// Package toolstest is the conformance suite every tool passes: its schema
// compiles and describes an object, its brief is one line, bad arguments give
// an error result (never a Go error or a panic), and a cancelled context stops
// it promptly.
package toolstest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// Suite describes how to exercise one tool.
type Suite struct {
	Tool tools.Tool
	// SchemaInvalid are argument texts the registry must refuse (wrong
	// types, missing required fields). Invalid JSON is always tried.
	SchemaInvalid []string
	// BadArgs are arguments that pass the schema but must give an error
	// result (a path outside the working directory, a bad pattern).
	BadArgs []string
	// SlowArgs are arguments on which the tool runs until cancelled; empty
	// skips the cancellation check.
	SlowArgs string
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// hangLimit bounds how long a cancelled tool may take to return before the
// suite calls it hung. It detects a hang; it does not measure speed.
const hangLimit = 10 * time.Second

// Run runs the suite as subtests of t.
func Run(t *testing.T, s Suite) {
	t.Helper()
	def := s.Tool.Definition()
	reg, err := tools.NewRegistry(s.Tool)
	if err != nil {
		t.Fatalf("registry refuses the tool: %v", err)
	}
	t.Run("definition", func(t *testing.T) {
		if !namePattern.MatchString(def.Name) {
			t.Errorf("name %q is not [a-z][a-z0-9_]*", def.Name)
		}
		brief := def.Brief()
		if brief == "" || len(brief) > 160 {
			t.Errorf("brief must be one line of 1..160 bytes, got %d: %q", len(brief), brief)
		}
		if strings.TrimSpace(def.Description) == brief {
			t.Errorf("description is only the brief; the full description should say more")
		}
		var schema map[string]any
		if err := json.Unmarshal(def.Schema, &schema); err != nil {
			t.Fatalf("schema is not a JSON object: %v", err)
		}
		if schema["type"] != "object" {
			t.Errorf("schema type = %v, want object", schema["type"])
		}
		// The registry compiles a schema only when the tool is first used.
		if _, err := tools.CompileSchema(def.Schema); err != nil {
			t.Errorf("schema: %v", err)
		}
		if again := s.Tool.Definition(); again.Name != def.Name || string(again.Schema) != string(def.Schema) {
			t.Errorf("Definition is not stable between calls")
		}
	})
	t.Run("schema-invalid arguments are refused", func(t *testing.T) {
		for _, args := range append([]string{`{"unterminated`, `[1,2]`}, s.SchemaInvalid...) {
			if _, err := reg.Validate(def.Name, args); err == nil {
				t.Errorf("Validate(%s) accepted invalid arguments", args)
			}
		}
	})
	t.Run("bad arguments give an error result", func(t *testing.T) {
		for _, args := range s.BadArgs {
			raw, err := reg.Validate(def.Name, args)
			if err != nil {
				t.Errorf("BadArgs %s should pass the schema: %v", args, err)
				continue
			}
			res, err := s.Tool.Run(context.Background(), tools.Call{Args: raw})
			if err != nil {
				t.Errorf("Run(%s) returned a Go error %v; tool problems must be results", args, err)
				continue
			}
			if !res.IsError || res.Content == "" {
				t.Errorf("Run(%s) = %+v, want an error result with a message", args, res)
			}
		}
	})
	if s.SlowArgs != "" {
		t.Run("cancelled before it starts", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			checkCancelled(t, s.Tool, ctx, s.SlowArgs)
		})
		t.Run("cancelled while it runs", func(t *testing.T) {
			// The context cancels itself the first time the tool consults
			// it, so the cancellation lands after Run has started, wherever
			// the tool first looks.
			checkCancelled(t, s.Tool, newNoticing(), s.SlowArgs)
		})
	}
}

// checkCancelled runs the tool with ctx, which is or will be cancelled, and
// requires it to return within hangLimit with an error or an error result.
func checkCancelled(t *testing.T, tool tools.Tool, ctx context.Context, args string) {
	t.Helper()
	done := make(chan struct{})
	var res tools.Result
	var err error
	go func() {
		defer close(done)
		res, err = tool.Run(ctx, tools.Call{Args: json.RawMessage(args)})
	}()
	select {
	case <-done:
	case <-time.After(hangLimit):
		t.Fatalf("Run did not return within %v of cancellation", hangLimit)
	}
	if err == nil && !res.IsError {
		t.Errorf("a cancelled run reported success: %+v", res)
	}
}

// noticing is a context that cancels itself when the tool first asks
// whether it is done.
type noticing struct {
	context.Context
	cancel context.CancelFunc
	once   sync.Once
}

func newNoticing() *noticing {
	ctx, cancel := context.WithCancel(context.Background())
	return &noticing{Context: ctx, cancel: cancel}
}

func (n *noticing) Done() <-chan struct{} {
	n.once.Do(n.cancel)
	return n.Context.Done()
}

func (n *noticing) Err() error {
	n.once.Do(n.cancel)
	return n.Context.Err()
}
