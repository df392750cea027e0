// Package cmd holds the cobra commands of agent, its configuration, the
// wiring of provider, tools and loop, and the headless printer.
package cmd

// Execute runs the agent command line and returns the process exit code.
func Execute() int { return 0 }
