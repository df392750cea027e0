package loop_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// settlingSource is a catalog source with a change on its way: Settle
// publishes the catalog with the late tool, or, when block is set, waits
// for the turn's context to end.
type settlingSource struct {
	*picker.Live
	late    *picker.Catalog
	block   bool
	waiting chan struct{} // closed when a blocking Settle starts to wait
}

func (s *settlingSource) Settle(ctx context.Context) {
	if s.block {
		close(s.waiting)
		<-ctx.Done()
		return
	}
	s.Set(s.late)
}

func settlingLoop(t *testing.T, block bool, p providers.Provider) (*loop.Loop, *conversation.Conversation, *settlingSource) {
	t.Helper()
	early, err := tools.NewRegistry(echo("early", true))
	if err != nil {
		t.Fatal(err)
	}
	late, err := tools.NewRegistry(echo("early", true), echo("late", true))
	if err != nil {
		t.Fatal(err)
	}
	src := &settlingSource{Live: picker.NewLive(picker.New(early, picker.ModeAll)), late: picker.New(late, picker.ModeAll), block: block,
		waiting: make(chan struct{})}
	l, err := loop.New(loop.Config{Provider: p, Model: "m", Catalog: src})
	if err != nil {
		t.Fatal(err)
	}
	return l, conversation.New("", nil), src
}

// A request carries the tools its catalog source settled on before it.
func TestRequestCarriesTheSettledCatalog(t *testing.T) {
	p := fake.New(fake.Text("hi"))
	l, conv, _ := settlingLoop(t, false, p)
	if _, done := collect(l.Run(context.Background(), conv, providers.UserText("hello"))); done.Reason != loop.StopAnswered {
		t.Fatalf("done %+v", done)
	}
	var names []string
	for _, d := range p.Requests()[0].Tools {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "late") {
		t.Errorf("the request offered %v, without the tool the source settled on", names)
	}
}

// Cancelling the turn ends the wait for a catalog that is still settling.
func TestCancelEndsTheCatalogsSettling(t *testing.T) {
	l, conv, src := settlingLoop(t, true, fake.New(fake.Text("hi")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := l.Run(ctx, conv, providers.UserText("hello"))
	select {
	case <-src.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn never settled its catalog")
	}
	cancel()
	done := make(chan loop.Done, 1)
	go func() { _, d := collect(ch); done <- d }()
	select {
	case d := <-done:
		if d.Reason != loop.StopCancelled {
			t.Errorf("done %+v, want cancelled", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn waited for its catalog after it was cancelled")
	}
}
