package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Owner names the process working in a worktree: its id, its start time
// as the kernel counts it (0 where unknown) and its machine's host name,
// as a session's lease names its holder.
type Owner struct {
	PID   int    `json:"pid"`
	Start int64  `json:"start,omitempty"`
	Host  string `json:"host,omitempty"`
}

// Record is what agent keeps of a worktree it made, in a JSON file beside
// it (DIR/KEY/NAME.json).
type Record struct {
	Name string `json:"name"`
	// Repo is the main working tree of the repository.
	Repo string `json:"repo"`
	// Path is the worktree's directory; Branch its branch (agent/NAME);
	// Base the commit it started from.
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// OwnBranch says agent made the branch with the worktree: it goes with
	// the worktree when it holds no commit past Base. A branch that
	// existed before is always kept.
	OwnBranch bool `json:"own_branch,omitempty"`
	// Session is the session that works in it; Task the task call whose
	// subagent does ("" for a session's own worktree).
	Session string `json:"session,omitempty"`
	Task    string `json:"task,omitempty"`
	// Owner is the process working in it now; nil when none does (the
	// session ended and kept it).
	Owner *Owner `json:"owner,omitempty"`
	// Crashed says its owner ended without closing it (found and reported
	// by a later start, Manager.Orphans).
	Crashed bool      `json:"crashed,omitempty"`
	Created time.Time `json:"created"`
}

// recordSuffix ends a record's file name.
const recordSuffix = ".json"

// recordPath is the file of record name in the repository directory dir.
func recordPath(dir, name string) string { return filepath.Join(dir, name+recordSuffix) }

// claim creates the record file of r.Name in dir, failing with
// fs.ErrExist when another worktree has the name: the name is this
// caller's from then on.
func claim(dir string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(recordPath(dir, r.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// save writes r's record in dir whole (a temporary file renamed over the
// old one, so a reader never sees half of it).
func save(dir string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+r.Name+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving worktree %s's record: %w", r.Name, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), recordPath(dir, r.Name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving worktree %s's record: %w", r.Name, err)
	}
	return nil
}

// load reads record name of dir; fs.ErrNotExist when there is none.
func load(dir, name string) (Record, error) {
	data, err := os.ReadFile(recordPath(dir, name))
	if err != nil {
		return Record{}, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("worktree record %s: %w", recordPath(dir, name), err)
	}
	return r, nil
}

// loadAll reads every record of dir, by name; a directory that does not
// exist holds none. A record that cannot be read is skipped and its
// problem returned beside the others.
func loadAll(dir string) ([]Record, []error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("listing worktrees: %w", err)}
	}
	var out []Record
	var errs []error
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), recordSuffix)
		if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		r, err := load(dir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, errs
}
