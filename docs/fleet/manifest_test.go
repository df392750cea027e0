// Package fleet checks the examples of docs/fleet.md: the Kubernetes Job
// (job.yaml) decodes strictly into Kubernetes' own types and says what the
// page promises, the GitHub Actions workflow (review.yml) passes actionlint,
// and the review's schema (review.schema.json) is a schema that accepts a
// review and refuses what is not one. It has no code of its own.
package fleet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeJob reads job.yaml into batch/v1's Job; a field Kubernetes does not
// know, a duplicate field or a value of the wrong type fails.
func decodeJob(t *testing.T) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("job.yaml is not a batch/v1 Job: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("job.yaml is %s %s, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	return &job
}

// TestStrictDecodingRefusesUnknownFields makes sure the decoding the other
// tests rely on is strict: a misspelt field fails rather than vanishing.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	var job batchv1.Job
	bad := "apiVersion: batch/v1\nkind: Job\nspec:\n  backofLimit: 2\n"
	if err := yaml.UnmarshalStrict([]byte(bad), &job); err == nil {
		t.Fatal("a misspelt field (backofLimit) decoded without an error")
	}
}

func agentContainer(t *testing.T, job *batchv1.Job) corev1.Container {
	t.Helper()
	for _, c := range job.Spec.Template.Spec.Containers {
		if c.Name == "agent" {
			return c
		}
	}
	t.Fatal("job.yaml has no container named agent")
	return corev1.Container{}
}

// flagValue returns the value after flag in args, and whether flag is there.
func flagValue(args []string, flag string) (string, bool) {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

// TestJobRunsAgentHeadless: the container runs `agent -p PROMPT` with the
// flags docs/fleet.md describes.
func TestJobRunsAgentHeadless(t *testing.T) {
	job := decodeJob(t)
	c := agentContainer(t, job)
	if !slices.Equal(c.Command, []string{"agent"}) {
		t.Errorf("command is %q, want [agent]", c.Command)
	}
	if len(c.Args) < 2 || c.Args[0] != "-p" || strings.HasPrefix(c.Args[1], "-") {
		t.Errorf("args %q do not start with -p and a prompt", c.Args)
	}
	budget, ok := flagValue(c.Args, "--max-budget-usd")
	if usd, err := strconv.ParseFloat(budget, 64); !ok || err != nil || usd <= 0 {
		t.Errorf("--max-budget-usd is %q (present: %v), want a positive amount", budget, ok)
	}
	if v, ok := flagValue(c.Args, "--output-format"); !ok || v != "json" {
		t.Errorf("--output-format is %q, want json", v)
	}
	if v, ok := flagValue(c.Args, "--json-schema"); !ok || filepath.Base(v) != "review.schema.json" {
		t.Errorf("--json-schema is %q, want a path to review.schema.json", v)
	}
	if v, ok := flagValue(c.Args, "--export-session"); !ok || !strings.HasPrefix(v, "/sessions/") {
		t.Errorf("--export-session is %q, want a file on the sessions volume", v)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || m.MountPath == "/sessions"
	}
	if !mounted {
		t.Error("nothing is mounted at /sessions, where --export-session writes")
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", c.Resources)
	}
}

// TestJobBounds: retries and the deadline are bounded, and the pod is never
// restarted in place (podFailurePolicy requires restartPolicy Never).
func TestJobBounds(t *testing.T) {
	job := decodeJob(t)
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit < 0 || *job.Spec.BackoffLimit > 5 {
		t.Errorf("backoffLimit %v: want a small number", job.Spec.BackoffLimit)
	}
	if job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds <= 0 {
		t.Error("activeDeadlineSeconds is not set")
	}
	if rp := job.Spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy is %q, want Never", rp)
	}
}

// TestJobExitCodesFailTheJob: the exit codes a retry cannot help (2 usage,
// 3 step limit, 4 spend cap, 5 schema) end the Job at once; 0, 1 and 130 are
// left to backoffLimit.
func TestJobExitCodesFailTheJob(t *testing.T) {
	job := decodeJob(t)
	if job.Spec.PodFailurePolicy == nil {
		t.Fatal("no podFailurePolicy")
	}
	var failJob []int32
	for _, r := range job.Spec.PodFailurePolicy.Rules {
		if r.Action != batchv1.PodFailurePolicyActionFailJob || r.OnExitCodes == nil {
			continue
		}
		if r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != "agent" {
			t.Errorf("a FailJob rule is not limited to the agent container: %+v", r.OnExitCodes)
		}
		if r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn {
			t.Errorf("a FailJob rule's operator is %q, want In", r.OnExitCodes.Operator)
			continue
		}
		failJob = append(failJob, r.OnExitCodes.Values...)
	}
	for _, code := range []int32{2, 3, 4, 5} {
		if !slices.Contains(failJob, code) {
			t.Errorf("exit code %d does not fail the Job (FailJob codes: %v)", code, failJob)
		}
	}
	for _, code := range []int32{0, 1, 130} {
		if slices.Contains(failJob, code) {
			t.Errorf("exit code %d fails the Job at once; it should be left to backoffLimit", code)
		}
	}
}

// secretLike is a variable name whose value must come from a Secret.
var secretLike = regexp.MustCompile(`(?i)KEY|TOKEN|SECRET|PASSWORD|HEADERS`)

// TestJobSecretsNotInline: the API key and the OTLP headers come from a
// Secret, no secret-looking variable has a literal value, and telemetry is
// configured with the standard variables.
func TestJobSecretsNotInline(t *testing.T) {
	job := decodeJob(t)
	pod := job.Spec.Template.Spec
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, e := range c.Env {
			if secretLike.MatchString(e.Name) && e.Value != "" {
				t.Errorf("container %s: %s has a literal value; take it from a Secret", c.Name, e.Name)
			}
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range agentContainer(t, job).Env {
		env[e.Name] = e
	}
	for _, name := range []string{"OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_HEADERS"} {
		e, ok := env[name]
		if !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s is not taken from a Secret (secretKeyRef)", name)
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		if env[name].Value == "" {
			t.Errorf("%s is not set", name)
		}
	}
	if p := env["OTEL_EXPORTER_OTLP_PROTOCOL"].Value; p != "http/protobuf" && p != "grpc" {
		t.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL is %q, want http/protobuf or grpc", p)
	}
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// TestJobVariableReferences: Kubernetes expands $(NAME) in command, args and
// env values only when NAME is defined in the container's env (before it,
// for env values); otherwise the text stays as written. Every reference must
// expand.
func TestJobVariableReferences(t *testing.T) {
	job := decodeJob(t)
	pod := job.Spec.Template.Spec
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		all := map[string]bool{}
		for _, e := range c.Env {
			all[e.Name] = true
		}
		check := func(where, s string, defined map[string]bool) {
			for _, m := range varRef.FindAllStringSubmatch(s, -1) {
				if !defined[m[1]] {
					t.Errorf("container %s: %s refers to $(%s), which is not defined there", c.Name, where, m[1])
				}
			}
		}
		for _, s := range append(slices.Clone(c.Command), c.Args...) {
			check("command or args", s, all)
		}
		before := map[string]bool{}
		for _, e := range c.Env {
			check("env "+e.Name, e.Value, before)
			before[e.Name] = true
		}
	}
}

// TestReviewSchema: review.schema.json resolves, accepts a review and
// refuses objects that are not one.
func TestReviewSchema(t *testing.T) {
	data, err := os.ReadFile("review.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("review.schema.json does not resolve: %v", err)
	}
	validate := func(doc string) error {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		return resolved.Validate(v)
	}
	good := `{"verdict":"request_changes","summary":"Adds a cache; one race.","findings":[
		{"file":"cache/cache.go","line":42,"severity":"blocker","message":"m is read without the lock"}]}`
	if err := validate(good); err != nil {
		t.Errorf("a valid review is refused: %v", err)
	}
	for name, doc := range map[string]string{
		"no verdict":       `{"summary":"x","findings":[]}`,
		"unknown verdict":  `{"verdict":"lgtm","summary":"x","findings":[]}`,
		"extra field":      `{"verdict":"approve","summary":"x","findings":[],"score":3}`,
		"negative line":    `{"verdict":"approve","summary":"x","findings":[{"file":"a","line":-1,"severity":"nit","message":"m"}]}`,
		"unknown severity": `{"verdict":"approve","summary":"x","findings":[{"file":"a","line":1,"severity":"fatal","message":"m"}]}`,
	} {
		if validate(doc) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
