package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/protect"
)

// trustFile is the name of the project trust store in the data directory.
const trustFile = "mcp-trust.json"

// protectedPaths is the one list of protected paths of a run in dir, which
// the file tools and the sandbox both take: the working directory's git
// metadata, the agent's config file and directory, the data directory and
// its trust store, the project's .claude and .agent directories, and the
// credentials of the settings.
func (h *Host) protectedPaths(dir string) protect.Paths {
	s := h.settings
	var dirs, files []string
	if s.ConfigPath != "" {
		if p, err := filepath.Abs(s.ConfigPath); err == nil {
			dirs, files = append(dirs, filepath.Dir(p)), append(files, p)
		}
	}
	creds := s.Sandbox.Credentials
	if h.dbErr == nil {
		if p, err := filepath.Abs(h.db); err == nil {
			dirs, files = append(dirs, filepath.Dir(p)), append(files, filepath.Join(filepath.Dir(p), trustFile))
			creds = append(slices.Clone(creds), dataSecrets(p)...)
		}
	}
	project := []string{filepath.Join(dir, ".claude"), filepath.Join(dir, ".agent")}
	return protect.New(protect.Paths{Dir: dir, Agent: dirs, AgentFiles: files, Project: project, Credentials: creds}, os.ReadFile)
}

// dataSecrets are the files of the data directory beside the session
// database db that commands may not read, like ~/.ssh: the MCP servers'
// OAuth tokens, the database with its journal (every project's sessions,
// as they were said), the hooks' transcripts, the trust stores, the
// checkpoints (other projects' files). The sandbox hides those that
// exist; the file tools never reach them (they lie outside the working
// directory).
func dataSecrets(db string) []string {
	data := filepath.Dir(db)
	out := []string{db, db + "-wal", db + "-shm", db + "-journal"}
	for _, name := range []string{oauthDir, "transcripts", trustFile, "checkpoints"} {
		out = append(out, filepath.Join(data, name))
	}
	return out
}

// protectedWrite returns the risk and the path of a call whose preview says
// it writes a protected path (tools.MetaProtected), "" when it does not.
func protectedWrite(req loop.Approval) (risk, rel string) {
	if req.Preview == nil {
		return "", ""
	}
	risk, _ = req.Preview.Meta[tools.MetaProtected].(string)
	rel, _ = req.Preview.Meta[tools.MetaPath].(string)
	return risk, rel
}

// protectedDenial is the headless answer to a write of a protected path:
// nobody can approve it, in any permission mode.
func protectedDenial(name, rel, risk string) loop.Decision {
	return loop.Decision{Why: "denied: protected path, nobody to ask (headless)",
		Reason: fmt.Sprintf("%s of %s was not run: the path is protected (%s). Only the user can approve such a write, one call at a time, in the interface; no permission mode allows it. Do not try another way (bash, a symlink, a copy): tell the user what you wanted to change and why.", name, rel, risk)}
}

// ProtectedQuestion is the warning shown with the question about a write
// of a protected path.
func ProtectedQuestion(rel, risk string) string {
	return fmt.Sprintf("%s is protected — %s. Allow only if you asked for this change.", rel, risk)
}

// askProtected asks the person about a write of a protected path, whatever
// the permission mode, and on a yes grants that one write to the tool.
func askProtected(ctx context.Context, guard *protect.Guard, rel string, ask func(context.Context) loop.Decision) loop.Decision {
	d := ask(ctx)
	if d.Allow {
		guard.Grant(rel)
		d.Why = "person: once, protected path"
	}
	return d
}
