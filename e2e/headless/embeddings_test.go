package headless

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/e2e"
	"github.com/agent-dev/agent/internal/scripted"
)

// An embeddings endpoint that never answers holds back neither a turn nor
// the process's exit: the background indexer is stopped at exit, and
// memory_search gives up on the query's embedding and answers with its
// keyword results, saying nothing of embeddings to the model.
func TestAHangingEmbeddingsEndpointNeverHoldsATurn(t *testing.T) {
	t.Parallel()
	dir, db := e2e.Project(t)
	hang := scripted.Options{OnEmbeddings: func(ctx context.Context, _ []string) { <-ctx.Done() }}
	first := scripted.NewWithOptions(t, hang, scripted.Text("Noted."))
	e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(first, "--db", db, "-p", "our staging cluster is called heliotrope-7")})

	second := scripted.NewWithOptions(t, hang,
		scripted.ToolCalls(scripted.Call{ID: "s1", Name: "memory_search", Arguments: `{"query":"staging cluster"}`}),
		scripted.Text("It is heliotrope-7."),
	)
	r := e2e.RunOK(t, e2e.Invocation{Dir: dir, Args: e2e.AgentArgs(second, "--db", db, "-p", "which staging cluster do we use?")})
	if r.Stdout != "It is heliotrope-7.\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	reqs := second.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	found := e2e.ToolResults(reqs[1])["s1"]
	if !strings.Contains(found, "heliotrope-7") || strings.Contains(strings.ToLower(found), "embedding") {
		t.Errorf("memory_search result with a hanging embeddings endpoint: %s", found)
	}
}
