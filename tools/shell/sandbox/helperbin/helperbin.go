// Package helperbin holds the sandbox helper as a small program of its own
// for the agent to start instead of its own 45 MB binary: csrc/agent-sandbox.c,
// a static C program without a C library (20 KB for amd64, 15 KB for
// arm64) that does what package helper does, to the same options
// (helper.Options.Args) and with the same messages. A Go program's start-up
// (the runtime's set-up, its threads, page faults) was about 2.5 ms of
// each helper start on a 2-core machine, more than half of what the
// sandbox added to a command; this one starts in a tenth of a millisecond
// (BENCHMARKS.md, issue 43).
//
// The programs are built by build.go (go generate) into this directory
// and embedded; TestEmbeddedHelpersAreBuiltFromThisSource fails when they
// are not what the helper's source builds to. File writes this platform's
// into a sealed memfd, which Exec names for a child to start: nothing, not
// even a command the agent runs, can change it between two starts, as a
// file on disk could be. Where none is embedded, or the memfd will not
// start, the agent starts its own binary, whose package helper takes over.
package helperbin

//go:generate go run build.go
