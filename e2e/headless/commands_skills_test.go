package headless

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// agent -p "/review main.go" runs .claude/commands/review.md with
// $ARGUMENTS expanded, and the @path mention of the body attached.
func TestCustomCommandHeadless(t *testing.T) {
	t.Parallel()
	dir := e2e.ExtProject(t, map[string]string{".claude/commands/review.md": "---\ndescription: Review a file\nargument-hint: [file]\n---\nReview @$ARGUMENTS for bugs; answer in one line.\n"})
	srv := scripted.New(t, scripted.Text("No bugs."))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "/review main.go")})
	if res.Code != 0 || res.Stdout != "No bugs.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	got := e2e.LastUserText(srv.Requests()[0])
	if !strings.HasPrefix(got, "Review @main.go for bugs; answer in one line.") || !strings.Contains(got, "func main() {}") {
		t.Errorf("the model got %q, want the command's body with main.go attached", got)
	}
}

// skillFixture is a project with a skill of its own and a user skill,
// outside the working directory, with a file beside its SKILL.md.
func skillFixture(t *testing.T) (dir, home string) {
	dir = e2e.ExtProject(t, map[string]string{".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release of this project.\n---\nSTEP-ONE: tag the commit with vX.Y.Z.\n"})
	home = t.TempDir()
	userSkill := filepath.Join(home, ".claude", "skills", "changelog")
	os.MkdirAll(userSkill, 0o755)
	os.WriteFile(filepath.Join(userSkill, "SKILL.md"), []byte("---\nname: changelog\ndescription: Write the changelog entry of a change.\n---\nFollow format.md.\n"), 0o644)
	os.WriteFile(filepath.Join(userSkill, "format.md"), []byte("FORMAT: one line per change, imperative mood.\n"), 0o644)
	os.WriteFile(filepath.Join(home, "private.txt"), []byte("PRIVATE\n"), 0o644)
	return dir, home
}

// A skill's description is in the first request and its body only after
// the skill call; read_file reads the files of a skill's folder outside
// the working directory, and nothing else there.
func TestSkillsLoadOnDemand(t *testing.T) {
	t.Parallel()
	dir, home := skillFixture(t)
	format := filepath.Join(home, ".claude", "skills", "changelog", "format.md")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call{ID: "s", Name: "skill", Arguments: `{"name":"changelog"}`}),
		scripted.ToolCalls(scripted.Call{ID: "f", Name: "read_file", Arguments: `{"path":"` + format + `"}`},
			scripted.Call{ID: "p", Name: "read_file", Arguments: `{"path":"` + filepath.Join(home, "private.txt") + `"}`}),
		scripted.Text("Written."))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"HOME=" + home}, Args: e2e.AgentArgs(srv, "-p", "write the changelog entry")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := string(reqs[0].Body)
	for _, want := range []string{"Cut a release of this project.", "Write the changelog entry of a change."} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks the description %q", want)
		}
	}
	if strings.Contains(first, "STEP-ONE") || strings.Contains(first, "Follow format.md") {
		t.Error("the first request carries a skill's body")
	}
	if got := e2e.ToolResults(reqs[1])["s"]; !strings.Contains(got, "Follow format.md.") || !strings.Contains(got, format) {
		t.Errorf("the skill call returned %q", got)
	}
	results := e2e.ToolResults(reqs[2])
	if !strings.Contains(results["f"], "FORMAT: one line per change") {
		t.Errorf("read_file of the skill's file: %q", results["f"])
	}
	if strings.Contains(results["p"], "PRIVATE") {
		t.Errorf("read_file read outside the skill's folder: %q", results["p"])
	}
}

// The first request for "hi" grows by no more than the skills' briefs:
// without skills there is no skill tool and no <skills> section.
func TestSkillsCostOnlyTheirBriefs(t *testing.T) {
	t.Parallel()
	measure := func(dir, home string) (int, string) {
		srv := scripted.New(t, scripted.Text("hello"))
		res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"HOME=" + home}, Args: e2e.AgentArgs(srv, "-p", "hi")})
		if res.Code != 0 {
			t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
		}
		return len(srv.Requests()[0].Body), string(srv.Requests()[0].Body)
	}
	plain, plainBody := measure(e2e.ExtProject(t, map[string]string{}), t.TempDir())
	if strings.Contains(plainBody, `"skill"`) || strings.Contains(plainBody, "<skills>") {
		t.Error("a run without skills offers the skill tool or lists skills")
	}
	dir, home := skillFixture(t)
	with, _ := measure(dir, home)
	briefs := len("- release: Cut a release of this project.\n") + len("- changelog: Write the changelog entry of a change.\n")
	// The <skills> section's frame and the skill tool's name and brief
	// in pick_tools' index are a fixed cost, paid only with skills.
	const fixed = 300
	t.Logf("first request for hi: %d bytes without skills, %d with two (+%d; their briefs %d bytes)", plain, with, with-plain, briefs)
	if with-plain > briefs+fixed {
		t.Errorf("two skills grow the first request by %d bytes, more than their briefs (%d) and the fixed %d", with-plain, briefs, fixed)
	}
}

// A command's model front matter answers that command's turn, and only that one; a Claude model a repository's
// command names for Claude Code is not asked of another provider (the session's model answers, and a note says so).
func TestCustomCommandModel(t *testing.T) {
	t.Parallel()
	dir := e2e.ExtProject(t, map[string]string{
		".claude/commands/quick.md":  "---\nmodel: small-model\n---\nSay hi.\n",
		".claude/commands/claude.md": "---\nmodel: claude-3-5-haiku-20241022\n---\nSay hello.\n",
	})
	srv := scripted.New(t, scripted.Text("hi"), scripted.Text("again"), scripted.Text("hello"))
	db := filepath.Join(t.TempDir(), "a.db")
	for _, prompt := range []string{"/quick", "again"} {
		args := e2e.AgentArgs(srv, "--db", db, "-p", prompt)
		if prompt == "again" {
			args = e2e.AgentArgs(srv, "--db", db, "-c", "-p", prompt)
		}
		if res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: args}); res.Code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", prompt, res.Code, res.Stderr)
		}
	}
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-v", "-p", "/claude")})
	if res.Code != 0 || !strings.Contains(res.Stderr, "which this provider does not serve") {
		t.Fatalf("/claude: exit %d, stderr %q", res.Code, res.Stderr)
	}
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, r.Chat.Model)
	}
	if want := []string{"small-model", "scripted-model", "scripted-model"}; strings.Join(models, " ") != strings.Join(want, " ") {
		t.Errorf("the requests asked %q, want %q", models, want)
	}
}

// commitCommand is the shape of Anthropic's /commit (anthropics/claude-code,
// plugins/commit-commands): its allowed-tools list git add, status and
// commit, and its context comes from read-only snippets, git diff HEAD and
// git log among them, which it does not list.
const commitCommand = `---
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)
description: Create a git commit
---

## Context

- Current git status: !` + "`git status --short`" + `
- Current git diff (staged and unstaged changes): !` + "`git diff HEAD`" + `
- Current branch: !` + "`git branch --show-current`" + `
- Recent commits: !` + "`git log --oneline -10 | head -5`" + `
- Not read-only, not allowed: !` + "`touch planted`" + `

## Your task

Based on the above changes, create a single git commit.
`

// Anthropic's /commit gets its context: the read-only snippets it does
// not list in allowed-tools run in the read-only sandbox (a repository's
// command, not trusted), the diff reaches the model, and a snippet that
// is neither read-only nor allowed does not run headless.
func TestAnthropicsCommitCommandSeesTheDiff(t *testing.T) {
	t.Parallel()
	dir := e2e.ExtProject(t, map[string]string{".claude/commands/commit.md": commitCommand})
	for _, args := range [][]string{{"init", "-q", "-b", "trunk"}, {"add", "main.go"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "first commit"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"CHANGED-LINE\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.Text("Committed."))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(srv, "-p", "/commit")})
	if res.Code != 0 {
		t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
	}
	got := e2e.LastUserText(srv.Requests()[0])
	for _, want := range []string{"M main.go", `+func main() { println("CHANGED-LINE") }`, "Current branch: trunk", "first commit", "(not run: touch planted)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's prompt lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "planted")); err == nil {
		t.Error("a snippet nothing allowed ran")
	}
}

// agent -p "/start foo" runs the skill in .claude/skills/start (a skill
// is a slash command named after its folder): the model gets its body
// with the arguments put in, not the text typed.
func TestSkillAsCommandHeadless(t *testing.T) {
	t.Parallel()
	dir := e2e.ExtProject(t, map[string]string{".claude/skills/start/SKILL.md": "---\nname: Start Work\ndescription: Use when: a ticket is picked up\nargument-hint: [ticket] [branch]\n---\nStart ticket $ARGUMENTS[0] on branch $1; it costs \\$0.\n"})
	srv := scripted.New(t, scripted.Text("Started."))
	res := e2e.Run(t, e2e.Invocation{Dir: dir, Env: []string{"HOME=" + t.TempDir()}, Args: e2e.AgentArgs(srv, "-p", `/start foo "feature/x y"`)})
	if res.Code != 0 || res.Stdout != "Started.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	got := e2e.LastUserText(srv.Requests()[0])
	if !strings.Contains(got, "Start ticket foo on branch feature/x y; it costs $0.") || strings.HasPrefix(got, "/start") {
		t.Errorf("the model got %q, want the skill's body with its arguments", got)
	}
}
