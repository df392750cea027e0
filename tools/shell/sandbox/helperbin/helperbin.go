// Package helperbin holds the sandbox helper as a small program of its own
// (tools/shell/sandbox/helper/cmd/agent-sandbox, 1.7 MB) for the agent to
// start instead of its own 45 MB binary: Go's start-up grows with the
// binary (the runtime checks its function table, hashes its itabs and
// faults their pages in), and a sandboxed command starts the helper once,
// a session's first command twice (the namespace probe too). The small
// helper saves about 2.5 ms of each (BENCHMARKS.md, issue 43).
//
// The programs are built by build.go (go generate) into this directory
// and embedded; TestEmbeddedHelpersAreBuiltFromThisSource fails when they
// are not what the helper's source builds to. File writes this platform's
// into a sealed memfd, which Exec names for a child to start: nothing, not
// even a command the agent runs, can change it between two starts, as a
// file on disk could be.
package helperbin

//go:generate go run build.go
