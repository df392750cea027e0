package fleet

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// actionlintVersion is the version .ci/run installs.
const actionlintVersion = "v1.7.12"

// findActionlint looks on PATH, then in $(go env GOPATH)/bin.
func findActionlint(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "actionlint")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// TestReviewWorkflowActionlint runs actionlint on review.yml (its shellcheck
// checks of the run scripts too, when shellcheck is installed).
func TestReviewWorkflowActionlint(t *testing.T) {
	actionlint := findActionlint(t)
	if actionlint == "" {
		msg := "actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@" + actionlintVersion + ")"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + ", and CI must run this test")
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Log("shellcheck is not installed: actionlint skips its checks of the run scripts")
	}
	cmd := exec.Command(actionlint, "-no-color", "review.yml")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("actionlint review.yml: %v\n%s", err, out)
	}
}

var pinned = regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)

// TestReviewWorkflowSteps: what docs/fleet.md says the workflow does: actions
// pinned to a commit, agent -p with the spend cap, the schema, JSON output and
// the session export, the session uploaded whatever the outcome, and the
// OTLP settings from secrets.
func TestReviewWorkflowSteps(t *testing.T) {
	data, err := os.ReadFile("review.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Env   map[string]string `json:"env"`
			Steps []struct {
				ID   string            `json:"id"`
				If   string            `json:"if"`
				Uses string            `json:"uses"`
				Run  string            `json:"run"`
				With map[string]string `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["review"]
	if !ok {
		t.Fatal("review.yml has no job named review")
	}
	var run, upload string
	for _, s := range job.Steps {
		if s.Uses != "" && !pinned.MatchString(s.Uses) {
			t.Errorf("%s is not pinned to a commit", s.Uses)
		}
		if strings.Contains(s.Run, `agent -p "review this"`) {
			run = s.Run
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			upload = s.With["path"]
			if s.If != "always()" {
				t.Errorf("the upload runs if %q, want always()", s.If)
			}
		}
	}
	if run == "" {
		t.Fatal(`no step runs agent -p "review this"`)
	}
	for _, want := range []string{"--max-budget-usd ", "--json-schema .github/agent/review.schema.json", "--output-format json", "--export-session ", "git diff "} {
		if !strings.Contains(run, want) {
			t.Errorf("the review step has no %q", want)
		}
	}
	if !strings.Contains(upload, "agent-session.json") {
		t.Errorf("the upload's path %q leaves out the exported session", upload)
	}
	for _, name := range []string{"OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"} {
		if !strings.HasPrefix(job.Env[name], "${{ secrets.") {
			t.Errorf("%s is %q, want a secret", name, job.Env[name])
		}
	}
}
