package checkpoint

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Action is what restoring a checkpoint does to one file.
type Action string

// The actions of a Change.
const (
	Create Action = "create" // the file is missing now and comes back
	Modify Action = "modify" // its content or mode goes back
	Delete Action = "delete" // it was made after the checkpoint and goes
)

// Change is one file that differs between the working directory now and a
// checkpoint, and what restoring the checkpoint does to it.
type Change struct {
	// Path is slash-separated, relative to the working directory.
	Path   string `json:"path"`
	Action Action `json:"action"`
	// Added and Removed are the lines restoring adds and removes (git's
	// numstat); both 0 for a binary file.
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`

	mode, blob string // the checkpoint's mode and blob ("" for Delete)
}

// Diff lists the files that differ between trees from and to, as restoring
// to over from would change them, sorted by path.
func (s *Store) Diff(ctx context.Context, from, to string) ([]Change, error) {
	out, err := s.git("").Run(ctx, append([]string{"diff-tree", "-r", "-z", "--no-renames", "--raw", "--numstat", from, to, "--"}, s.pathspec()...)...)
	if err != nil {
		return nil, fmt.Errorf("comparing checkpoints: %w", err)
	}
	return parseDiff(out, s.rel)
}

// Changed lists the paths (relative to the working directory) that differ
// between trees from and to, sorted as git sorts them: compared in
// process when this process wrote both trees and remembers them, else by
// git diff-tree.
func (s *Store) Changed(ctx context.Context, from, to string) ([]string, error) {
	if paths, ok := s.changedInProcess(from, to); ok {
		return paths, nil
	}
	return s.changedByGit(ctx, from, to)
}

// changedByGit is Changed through git diff-tree.
func (s *Store) changedByGit(ctx context.Context, from, to string) ([]string, error) {
	out, err := s.git("").Run(ctx, append([]string{"diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to, "--"}, s.pathspec()...)...)
	if err != nil {
		return nil, fmt.Errorf("comparing checkpoints: %w", err)
	}
	var paths []string
	for _, p := range splitZ(out) {
		paths = append(paths, s.rel(p))
	}
	return paths, nil
}

// parseDiff reads diff-tree -z --raw --numstat output: the raw records
// (":OLDMODE NEWMODE OLD NEW STATUS\0PATH\0") then the numstat ones
// ("ADDED\tREMOVED\tPATH\0"), each path through rel.
func parseDiff(out string, rel func(string) string) ([]Change, error) {
	fields := splitZ(out)
	var changes []Change
	byPath := map[string]int{}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.HasPrefix(f, ":") {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("reading git diff-tree: a record without a path")
			}
			meta := strings.Fields(f[1:])
			if len(meta) != 5 {
				return nil, fmt.Errorf("reading git diff-tree: %q", f)
			}
			i++
			c := Change{Path: rel(fields[i]), mode: meta[1], blob: meta[3]}
			switch meta[4] {
			case "A":
				c.Action = Create
			case "D":
				c.Action, c.mode, c.blob = Delete, "", ""
			default:
				c.Action = Modify
			}
			byPath[c.Path] = len(changes)
			changes = append(changes, c)
			continue
		}
		parts := strings.SplitN(f, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("reading git diff-tree: %q", f)
		}
		j, ok := byPath[rel(parts[2])]
		if !ok {
			continue
		}
		if parts[0] == "-" {
			changes[j].Binary = true
			continue
		}
		changes[j].Added, _ = strconv.Atoi(parts[0])
		changes[j].Removed, _ = strconv.Atoi(parts[1])
	}
	return changes, nil
}
