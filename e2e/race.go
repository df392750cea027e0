//go:build race

package e2e

// raceDetector is whether the tests were built with -race.
const raceDetector = true
