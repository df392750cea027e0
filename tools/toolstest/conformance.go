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
			res, err := s.Tool.Run(context.Background(), raw)
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
		t.Run("cancellation is honoured", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			var res tools.Result
			var err error
			go func() {
				defer close(done)
				res, err = s.Tool.Run(ctx, json.RawMessage(s.SlowArgs))
			}()
			cancel()
			select {
			case <-done:
			case <-time.After(hangLimit):
				t.Fatalf("Run did not return within %v of cancellation", hangLimit)
			}
			if err == nil && !res.IsError {
				t.Errorf("a cancelled run reported success: %+v", res)
			}
		})
	}
}
