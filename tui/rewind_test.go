package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/providers/fake"
	"github.com/agent-dev/agent/sessions"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/picker"
)

// fakeRewinder is a session's checkpoints and the rewinds the test sets.
// A preview waits for hold (when not nil) or for its context's end.
type fakeRewinder struct {
	mu      sync.Mutex
	items   []sessions.Checkpoint
	preview Rewound
	hold    chan struct{}
	// rewind answers a rewind that is no preview; nil: the request's
	// prompt and nothing else.
	rewind  func(req RewindRequest) (Rewound, error)
	undo    func() (Rewound, *sessions.UndoResult, error)
	reqs    []RewindRequest
	session []string // the session of each call
}

var _ Rewinder = (*fakeRewinder)(nil)

func (f *fakeRewinder) Checkpoints(_ context.Context, id string) ([]sessions.Checkpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.session = append(f.session, id)
	return slices.Clone(f.items), nil
}

func (f *fakeRewinder) Rewind(ctx context.Context, sess *Session, req RewindRequest) (Rewound, error) {
	f.mu.Lock()
	f.reqs, f.session = append(f.reqs, req), append(f.session, sess.ID)
	hold, preview, rewind := f.hold, f.preview, f.rewind
	f.mu.Unlock()
	if req.Preview {
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return Rewound{}, ctx.Err()
			}
		}
		return preview, nil
	}
	if rewind == nil {
		return Rewound{Prompt: req.To}, nil
	}
	return rewind(req)
}

func (f *fakeRewinder) Undo(context.Context, string) (Rewound, *sessions.UndoResult, error) {
	return f.undo()
}

func (f *fakeRewinder) requests() []RewindRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// rewindClock is the driver's clock: the prompts were sent before it.
var rewindClock = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// threePrompts is a session of three prompts: the first and the last
// changed files.
func threePrompts() *fakeRewinder {
	return &fakeRewinder{
		items: []sessions.Checkpoint{
			{N: 1, Seq: 1, Prompt: "rename the config loader and fix its callers", Changed: []string{"config.go", "main.go"}, At: rewindClock.Add(-58 * time.Minute)},
			{N: 2, Seq: 5, Prompt: "what does the loader do with env vars?", At: rewindClock.Add(-20 * time.Minute)},
			{N: 3, Seq: 8, Prompt: "bump the version", Changed: []string{"VERSION"}, At: rewindClock.Add(-2 * time.Minute)},
		},
		preview: Rewound{
			Prompt: 1,
			Changes: []FileChange{
				{Path: "config.go", Action: "modify", Added: 12, Removed: 30},
				{Path: "loader_test.go", Action: "create", Added: 41},
				{Path: "internal/settings/settings.go", Action: "delete", Removed: 88},
				{Path: "logo.png", Action: "modify", Binary: true},
			},
			Kept:      []FileChange{{Path: "main.go", Action: "modify", Added: 1, Removed: 1}},
			Protected: []FileChange{{Path: ".git/config", Action: "modify", Added: 2}},
		},
	}
}

// rewindDriver is an interface on session s1 with rw as its Rewinder.
func rewindDriver(t *testing.T, rw Rewinder, srv *fake.Provider) *driver {
	t.Helper()
	if srv == nil {
		srv = fake.New()
	}
	cfg := config(t, srv, t.TempDir(), nil)
	if rw != nil {
		cfg.Rewind = rw
	}
	return newDriver(t, cfg)
}

// openByEscEsc presses Esc twice on the empty input and waits for the
// list.
func openByEscEsc(d *driver) {
	d.t.Helper()
	d.key("esc")
	d.untilShows("Press Esc again to rewind to an earlier prompt.")
	d.key("esc")
	d.untilShows("Rewind to before a prompt")
}

// The dialog as a person sees it: the prompts (times, the mark on those
// that changed files), the menu of what to restore, and the preview of the
// files, with those changed outside the agent and the protected ones.
func TestRewindDialogGolden(t *testing.T) {
	rw := threePrompts()
	d := rewindDriver(t, rw, nil)
	openByEscEsc(d)
	d.untilShows("bump the version")
	requireGolden(t, "screen_rewind_list_100x30", paneOf(d.screen()))
	d.key("up")
	d.key("up")
	d.key("enter")
	d.untilShows("Summarize from here")
	requireGolden(t, "screen_rewind_scopes_100x30", paneOf(d.screen()))
	d.key("down")
	d.key("down") // Restore code
	d.key("enter")
	d.untilShows("Restoring changes 4 files:")
	requireGolden(t, "screen_rewind_preview_100x30", paneOf(d.screen()))
	for _, stage := range []rewindStage{rewindList, rewindScopes, rewindPreview} {
		narrow := &rewindDialog{st: goldenStyles(), now: rewindClock, items: rw.items, stage: stage, plan: &rw.preview, scope: RewindBoth}
		requireGolden(t, "rewind_"+[]string{"list", "scopes", "preview"}[stage]+"_50", narrow.Render(50))
	}
	if got := rw.requests(); len(got) != 1 || got[0] != (RewindRequest{To: 1, Scope: RewindCode, Preview: true}) {
		t.Errorf("the preview asked %+v", got)
	}
}

// Restoring the code from the preview: the first choice leaves the files
// changed outside the agent alone, the second restores them too; either
// way a note says what was restored and what was left.
func TestRewindCodeFromThePreview(t *testing.T) {
	for _, tc := range []struct {
		name  string
		downs int
		force bool
		want  []string
	}{
		{name: "leave those alone", want: []string{"Restored the files to before prompt 1.", "restored config.go",
			"recreated loader_test.go", "removed internal/settings/settings.go", "Left as they are, changed outside the agent since: main.go"}},
		{name: "restore all", downs: 1, force: true, want: []string{"restored main.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rw := threePrompts()
			rw.rewind = func(req RewindRequest) (Rewound, error) {
				res := rw.preview
				res.Restored = res.Changes
				if req.Force {
					res.Restored = append(slices.Clone(res.Restored), res.Kept...)
				}
				return res, nil
			}
			d := rewindDriver(t, rw, nil)
			d.typeAndSend("/rewind")
			d.untilShows("bump the version")
			d.key("up")
			d.key("up")
			d.key("enter")
			d.key("down")
			d.key("down")
			d.key("enter")
			d.untilShows("Restore all, those changed outside the agent too")
			for range tc.downs {
				d.key("down")
			}
			d.key("enter")
			d.untilShows("Restored the files to before prompt 1.")
			for _, want := range tc.want {
				if !strings.Contains(d.screen(), want) {
					t.Errorf("the note lacks %q:\n%s", want, d.screen())
				}
			}
			if tc.force && strings.Contains(d.screen(), "Left as they are") {
				t.Errorf("a forced restore says it left files alone:\n%s", d.screen())
			}
			got := rw.requests()
			if want := (RewindRequest{To: 1, Scope: RewindCode, Force: tc.force}); len(got) != 2 || got[1] != want {
				t.Errorf("requests %+v, want the preview then %+v", got, want)
			}
			if d.m.rewind != nil || d.m.input.Value() != "" {
				t.Errorf("after restoring the code the dialog is open (%v) or the input holds %q", d.m.rewind != nil, d.m.input.Value())
			}
		})
	}
}

// forkOf is a session whose conversation is msgs, as a rewind makes it.
func forkOf(id string, msgs ...providers.Message) *Session {
	conv := conversation.New("", nil)
	for _, m := range msgs {
		conv.Append(context.Background(), m, providers.Usage{})
	}
	reg, _ := tools.NewRegistry()
	set := picker.New(reg, picker.ModePick)
	return &Session{ID: id, Conv: conv, NewLoop: func(model string) (*loop.Loop, error) {
		return loop.New(loop.Config{Provider: fake.New(), Model: model, Catalog: set})
	}}
}

// Rewinding the conversation to the second prompt shows the fork's
// history (what came before that prompt), puts the prompt's text back in
// the input, and says the conversation as it was is kept; the next prompt
// goes to the fork.
func TestRewindConversationGoesOnInTheFork(t *testing.T) {
	rw := threePrompts()
	rw.rewind = func(req RewindRequest) (Rewound, error) {
		return Rewound{Prompt: req.To, Text: "what does the loader do with env vars?\nand with flags?", Left: "s1",
			Session: forkOf("fork-2", userMessage("rename the config loader and fix its callers"),
				providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "Renamed it to Load."}}})}, nil
	}
	d := rewindDriver(t, rw, fake.New(fake.Text("Bumped to 1.4.")))
	d.typeAndSend("bump the version")
	d.untilShows("Bumped to 1.4.")
	d.until("idle", func(string) bool { return !d.m.running })
	openByEscEsc(d)
	d.untilShows("what does the loader do")
	d.key("up")
	d.key("enter")
	d.key("down") // Restore conversation
	d.key("enter")
	d.untilShows("Rewound the conversation to before prompt 2")
	screen := d.screen()
	for _, want := range []string{"Renamed it to Load.", "kept as session s1 (/sessions opens it)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "Bumped to 1.4.") || strings.Contains(screen, "Resumed:") {
		t.Errorf("the conversation left is still shown, or called resumed:\n%s", screen)
	}
	if got := d.m.input.Value(); got != "what does the loader do with env vars?\nand with flags?" {
		t.Errorf("the input holds %q", got)
	}
	if d.m.session.ID != "fork-2" {
		t.Errorf("the interface goes on in %s, want the fork", d.m.session.ID)
	}
	if got := rw.requests(); len(got) != 1 || got[0] != (RewindRequest{To: 2, Scope: RewindConversation}) {
		t.Errorf("requests %+v", got)
	}
}

// Summarizing from a prompt shows the fork with its summary as a note;
// the input stays empty.
func TestRewindSummarizeShowsTheSummary(t *testing.T) {
	rw := threePrompts()
	rw.rewind = func(req RewindRequest) (Rewound, error) {
		return Rewound{Prompt: req.To, Text: "bump the version", Left: "s1",
			Session: forkOf("fork-3", userMessage("rename the config loader and fix its callers"),
				providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{providers.Text{Text: "Renamed it to Load."}}},
				userMessage(loop.SummaryFromPrefix+"The person asked to bump the version; VERSION now says 1.4."))}, nil
	}
	d := rewindDriver(t, rw, nil)
	d.typeAndSend("/rewind")
	d.untilShows("bump the version")
	d.key("enter")
	for range 3 {
		d.key("down")
	}
	d.key("enter")
	d.untilShows("Summarized the conversation from prompt 3 on.")
	screen := d.screen()
	for _, want := range []string{"rewound and summarized", "VERSION now says 1.4.", "kept as session s1"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if d.m.input.Value() != "" {
		t.Errorf("the input holds %q after a summary", d.m.input.Value())
	}
}

// Esc while a preview is read abandons it: the menu of scopes is back and
// nothing was restored.
func TestRewindPreviewCanBeAbandoned(t *testing.T) {
	rw := threePrompts()
	rw.hold = make(chan struct{}) // never released: only Esc ends the preview
	d := rewindDriver(t, rw, nil)
	d.typeAndSend("/rewind")
	d.untilShows("bump the version")
	d.key("enter")
	d.key("enter") // Restore code and conversation
	d.untilShows("Reading the files…")
	d.key("esc")
	d.untilShows("Summarize from here")
	if d.m.rewind == nil || d.m.rewind.choice != int(RewindBoth) {
		t.Errorf("the menu is not back on the scope chosen")
	}
	if got := rw.requests(); len(got) != 1 || !got[0].Preview {
		t.Errorf("requests %+v, want the preview only", got)
	}
	d.key("esc")
	d.key("esc")
	if d.m.rewind != nil {
		t.Errorf("Esc from the list does not close the dialog")
	}
}

// Esc Esc opens the dialog only on an empty input with no turn running:
// with text in the input it does nothing, and while a turn runs the first
// Esc cancels it, as it always did.
func TestEscEscOnlyOnAnIdleEmptyInput(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Herons wait patiently.").WithPieceSize(4).HoldAfterEvents(2, hold))
	d := rewindDriver(t, threePrompts(), srv)

	d.key("draft")
	d.key("esc")
	d.key("esc")
	if d.m.rewind != nil || strings.Contains(d.screen(), "Press Esc again") {
		t.Fatalf("Esc Esc with text in the input opened the dialog:\n%s", d.screen())
	}
	for d.m.input.Value() != "" {
		d.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}

	d.typeAndSend("go")
	d.untilShows("Herons")
	d.key("esc")
	d.untilShows("Cancelled.")
	if d.m.rewind != nil {
		t.Fatal("Esc during a turn opened the dialog")
	}
	d.until("idle", func(string) bool { return !d.m.running })

	d.key("esc")
	d.untilShows("Press Esc again")
	d.key("x") // another key disarms
	d.key("esc")
	if d.m.rewind != nil {
		t.Fatal("Esc, a key, Esc opened the dialog")
	}
}

// A quick Esc Esc can reach the interface as one Alt+Esc.
func TestAltEscOpensTheDialog(t *testing.T) {
	d := rewindDriver(t, threePrompts(), nil)
	d.update(tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt})
	d.untilShows("Rewind to before a prompt")
}

// /rewind and /undo say why they cannot run: no sessions kept, a turn
// running.
func TestRewindAndUndoGuards(t *testing.T) {
	d := rewindDriver(t, nil, nil)
	d.typeAndSend("/rewind")
	d.untilShows("Sessions are not saved in this run, so there is nothing to rewind.")
	d.typeAndSend("/undo")
	d.untilShows("Sessions are not saved in this run, so there is nothing to undo.")

	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv := fake.New(fake.Text("Herons wait patiently.").WithPieceSize(4).HoldAfterEvents(2, hold))
	d = rewindDriver(t, threePrompts(), srv)
	d.typeAndSend("go")
	d.untilShows("Herons")
	d.typeAndSend("/rewind")
	d.untilShows("Cancel the running turn (Esc) before rewinding.")
	d.typeAndSend("/undo")
	d.untilShows("Cancel the running turn (Esc) before undoing.")
}

// /undo says what it restored and what it left as it was; a session from
// before checkpoints undoes from the journal; nothing left says so.
func TestUndoSaysWhatItRestoredAndKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		undo func() (Rewound, *sessions.UndoResult, error)
		want []string
	}{
		{name: "checkpoint", undo: func() (Rewound, *sessions.UndoResult, error) {
			return Rewound{Prompt: 3, Restored: []FileChange{{Path: "VERSION", Action: "modify"}, {Path: "NEWS.md", Action: "delete"}},
				Kept: []FileChange{{Path: "notes.txt", Action: "modify"}}}, nil, nil
		}, want: []string{"Undid prompt 3: the files are as they were before it.", "restored VERSION", "removed NEWS.md",
			"Left as they are, changed outside the agent since: notes.txt"}},
		{name: "journal", undo: func() (Rewound, *sessions.UndoResult, error) {
			return Rewound{}, &sessions.UndoResult{Turn: 12, Prompt: 2, Restored: []sessions.FileRestore{{Path: "a.go", Action: sessions.ActionRestored}}}, nil
		}, want: []string{"Undid prompt 2", "restored a.go"}},
		{name: "nothing", undo: func() (Rewound, *sessions.UndoResult, error) {
			return Rewound{}, nil, sessions.ErrNothingToUndo
		}, want: []string{"Nothing to undo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rw := threePrompts()
			rw.undo = tc.undo
			d := rewindDriver(t, rw, nil)
			d.typeAndSend("/undo")
			d.untilShows(tc.want[0])
			for _, want := range tc.want[1:] {
				if !strings.Contains(d.screen(), want) {
					t.Errorf("the note lacks %q:\n%s", want, d.screen())
				}
			}
		})
	}
}

// A list taller than the pane keeps its header and the chosen prompt in
// view.
func TestRewindListKeepsTheChosenPromptInView(t *testing.T) {
	var items []sessions.Checkpoint
	for i := range 30 {
		items = append(items, sessions.Checkpoint{N: i + 1, Prompt: "prompt " + strconv.Itoa(i+1), At: rewindClock})
	}
	d := &rewindDialog{st: goldenStyles(), now: rewindClock, items: items, cursor: 29}
	lines := strings.Split(d.View(60, 5), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "Rewind to before a prompt") || !strings.Contains(lines[4], "prompt 30") {
		t.Errorf("the newest prompt is not in view:\n%s", strings.Join(lines, "\n"))
	}
	d.cursor = 0
	if lines = strings.Split(d.View(60, 5), "\n"); !strings.Contains(lines[1], "▌   1") {
		t.Errorf("the first prompt is not in view:\n%s", strings.Join(lines, "\n"))
	}
}
