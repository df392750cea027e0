package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// AGENTS.md is part of every new session's system prompt, and the agent
// can write it: what one session writes there steers the next. So each run
// records, in a small file of the agent's data directory (which commands
// cannot write) named after the working directory, the hash of AGENTS.md
// when the run started and, when it ends, when it ended. The next run in
// the directory says so, before the file is used, when it changed during
// the last run, or when the last run did not end cleanly and the file is
// not what it was when that run started. Changes the person makes between
// runs say nothing.

// agentsMDRecord is one directory's record.
type agentsMDRecord struct {
	Dir   string  `json:"dir"`
	Start string  `json:"start"`         // hash when the last run started ("" when there was no file)
	End   *string `json:"end,omitempty"` // hash when it ended; nil when it did not end cleanly
}

// agentsMDWatch is a run's record, finished when the run ends.
type agentsMDWatch struct {
	path string
	rec  agentsMDRecord
	root *os.Root
}

// agentsMDShortNotice is the notice for the interface's status line.
const agentsMDShortNotice = "AGENTS.md changed in the last agent session: review it (git diff AGENTS.md)"

// agentsMDNotice is what a run says when AGENTS.md changed in the last run.
const agentsMDNotice = "AGENTS.md changed during the last agent session in this directory (the agent may have written it), and this session's system prompt carries it: review it (git diff AGENTS.md)."

// watchAgentsMD reads the directory's record under dataDir, records this
// run's start, and returns the notice to show ("" for none) and the watch
// to finish when the run ends. Failing to read or write the record is not
// an error: the notice is then shown only when it can be known.
func watchAgentsMD(dataDir string, root *os.Root, dir string) (string, *agentsMDWatch) {
	sum := sha256.Sum256([]byte(dir))
	w := &agentsMDWatch{path: filepath.Join(dataDir, "agents-md", hex.EncodeToString(sum[:12])+".json"), root: root}
	now := hashAgentsMD(root)
	notice := ""
	var last agentsMDRecord
	if b, err := os.ReadFile(w.path); err == nil && json.Unmarshal(b, &last) == nil && last.Dir == dir {
		switch {
		case last.End != nil && *last.End != last.Start:
			notice = agentsMDNotice
		case last.End == nil && now != last.Start:
			notice = agentsMDNotice
		}
	}
	w.rec = agentsMDRecord{Dir: dir, Start: now}
	w.write()
	return notice, w
}

// finish records the hash of AGENTS.md as the run ends.
func (w *agentsMDWatch) finish() {
	if w == nil {
		return
	}
	end := hashAgentsMD(w.root)
	w.rec.End = &end
	w.write()
}

// write records w.rec, overwriting the file in place rather than renaming
// a new one over it: on ext4 a rename that replaces a file writes the new
// file's blocks out at once (its auto_da_alloc), 0.7-0.85 ms of a -p run's
// exit on this project's test machine, where the overwrite takes
// microseconds (BENCHMARKS.md, issue 43). The record is under a hundred
// bytes and a sector; a crash in the middle of the write leaves at worst a
// record that does not parse, which shows no notice.
func (w *agentsMDWatch) write() {
	b, err := json.Marshal(w.rec)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(w.path), 0o700) != nil {
		return
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	if _, err := f.WriteAt(b, 0); err == nil {
		f.Truncate(int64(len(b))) // a shorter record than the last
	}
	f.Close()
}

// hashAgentsMD is the hex SHA-256 of root's AGENTS.md, "" when there is no
// regular file (read through root, as the system prompt reads it).
func hashAgentsMD(root *os.Root) string {
	if fi, err := root.Lstat("AGENTS.md"); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := root.Open("AGENTS.md")
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// watchAgentsMD watches AGENTS.md of dir (read through root) with the
// record kept in the data directory; nothing without one.
func (h *Host) watchAgentsMD(root *os.Root, dir string) (string, *agentsMDWatch) {
	if h.dataDir == "" {
		return "", nil
	}
	return watchAgentsMD(h.dataDir, root, dir)
}
