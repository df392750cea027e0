// Package turn is the turn runner every front-end starts turns through (the
// interface, headless runs; an ACP server and the Claude Agent SDK's
// stream-json next): around loop.Run it does once what each front-end did
// by itself. It attaches the prompt's @path mentions, marks the session
// running and titles it, runs the loop, and records how the turn ended;
// what a front-end shows it reads from the one event channel it returns.
package turn

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/mention"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/sessions"
)

// Sessions is what the runner records of a turn in the session store;
// *sessions.Store satisfies it.
type Sessions interface {
	// Get returns a session's record.
	Get(ctx context.Context, id string) (*sessions.Session, error)
	// SetTitle titles a session.
	SetTitle(ctx context.Context, id, title string) error
	// SetStatus records a session's status.
	SetStatus(ctx context.Context, id string, status sessions.Status) error
}

var _ Sessions = (*sessions.Store)(nil)

// Runner starts turns. Its zero value runs turns without mentions or a
// store (tests); it holds no state of its own and is safe for concurrent
// use, one turn at a time per conversation.
type Runner struct {
	// Mentions attaches the files a prompt's @path words name; nil attaches
	// nothing.
	Mentions *mention.Mentions
	// Sessions records the session's status and title; nil records
	// nothing (a conversation without a session).
	Sessions Sessions
	// Submit, when not nil, is asked about every prompt before its turn
	// starts (a custom slash command's expansion, UserPromptSubmit hooks):
	// it returns the prompt to send, or why it is not sent.
	Submit SubmitFunc
	// Observe, when not nil, is called with the session's id and the
	// prompt's when a turn starts, before Submit: the turn runs on the context it returns (a
	// service may end the turn by cancelling it), and the func it returns
	// (nil: none) sees each event the turn delivers, in order, before it
	// is delivered, Done last. The per-session services observe turns
	// here: the interface's idle notification counts from Done. Neither
	// may block for long: a slow observer holds the turn's events.
	Observe func(ctx context.Context, t Start) (context.Context, func(loop.Event))

	// created are the sessions this process created that no turn has run
	// in yet, with their titles (Created), guarded by mu.
	mu      sync.Mutex
	created map[string]string
}

// Created tells the runner that this process created session id, running
// and titled title, and that no turn has run in it: the first turn's start
// then reads nothing of it (a read of the store on the way to a -p run's
// first request; BENCHMARKS.md, issue 43), and writes its title only when
// title is "".
func (r *Runner) Created(id, title string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.created == nil {
		r.created = map[string]string{}
	}
	r.created[id] = title
}

// takeCreated returns the title Created gave session id, and forgets it;
// false when it gave none.
func (r *Runner) takeCreated(id string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	title, ok := r.created[id]
	delete(r.created, id)
	return title, ok
}

// Start is a turn as it starts, for Runner.Observe.
type Start struct {
	// Session is the session's id.
	Session string
	// PromptID is the prompt's id (Prompt.ID, or the uuid the runner
	// gave it).
	PromptID string
	// Seq is the store's sequence number the prompt's message will take
	// (the conversation's next: conversation.Conversation.NextSeq).
	Seq int
}

// SubmitFunc is asked about a prompt before its turn starts, with the
// session's id. It may block, and must return when ctx is cancelled.
type SubmitFunc func(ctx context.Context, session string, p Prompt) Submission

// Submission is a SubmitFunc's answer.
type Submission struct {
	// Prompt is the prompt to send (its Typed part's mentions are
	// attached).
	Prompt Prompt
	// Blocked, when not empty, says why the prompt is not sent: the turn
	// ends at once with StopError and this reason, and the session is
	// left as it was.
	Blocked string
	// Notices are delivered before the turn's events.
	Notices []loop.Notice
	// Model, when not empty, is the model this one turn asks instead of
	// the loop's (a custom command's front matter).
	Model string
}

// Prompt is a turn's user message and the part of it a person typed.
type Prompt struct {
	// Message is the user message (text, images).
	Message providers.Message
	// Typed is the text whose @path mentions are attached after the
	// message: what the person typed, not data piped beside it. Empty
	// attaches nothing.
	Typed string
	// ID is the prompt's id, a uuid: the restore point its checkpoint is
	// known by (the Claude Agent SDK's user message uuid). Empty: the
	// runner makes one.
	ID string
}

// Text is a prompt of one typed text.
func Text(s string) Prompt {
	return Prompt{Message: providers.Message{Role: providers.RoleUser, Parts: []providers.Part{providers.Text{Text: s}}}, Typed: s}
}

// Turn starts a turn of conv on l with p and returns its events: a
// loop.Notice of what the mentions attached (when they attached or skipped
// anything), then the loop's events, ending with its Done, after which the
// channel is closed. As with loop.Run, the consumer reads until the channel
// is closed. Turn returns at once: the mentions are read and the session
// marked running in the turn's goroutine. A session whose status cannot be
// written does not run: Done carries StopError and the reason. How the
// turn ended is recorded before Done is delivered, so a front-end that
// exits after Done leaves the session's status right.
func (r *Runner) Turn(ctx context.Context, l *loop.Loop, conv *conversation.Conversation, p Prompt) <-chan loop.Event {
	out := make(chan loop.Event, 64)
	go func() {
		defer close(out)
		id := conv.SessionID()
		send := func(ev loop.Event) { out <- ev }
		if p.ID == "" {
			p.ID = NewID()
		}
		if r.Observe != nil {
			var see func(loop.Event)
			if ctx, see = r.Observe(ctx, Start{Session: id, PromptID: p.ID, Seq: conv.NextSeq()}); see != nil {
				send = func(ev loop.Event) { see(ev); out <- ev }
			}
		}
		if r.Submit != nil {
			s := r.Submit(ctx, id, p)
			for _, n := range s.Notices {
				send(n)
			}
			if s.Blocked != "" {
				send(loop.Done{Reason: loop.StopError, Err: errors.New(s.Blocked)})
				return
			}
			p = s.Prompt
			l = l.WithModel(s.Model)
		}
		msg, note := r.expand(ctx, id, p)
		if note != "" {
			send(loop.Notice{Source: "mentions", Text: note})
		}
		if err := r.begin(ctx, id, p); err != nil {
			send(loop.Done{Reason: loop.StopError, Err: err})
			return
		}
		for ev := range l.Run(ctx, conv, msg) {
			if d, ok := ev.(loop.Done); ok {
				if err := r.end(context.WithoutCancel(ctx), id, d.Reason); err != nil && d.Err == nil {
					d.Err = err
				}
				ev = d
			}
			send(ev)
		}
	}()
	return out
}

// NewID is a new random uuid (version 4, RFC 9562): a prompt's id, and each stream-json message's.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// expand attaches the files the typed text mentions to the message's last
// text part and says what was attached.
func (r *Runner) expand(ctx context.Context, session string, p Prompt) (providers.Message, string) {
	msg := p.Message
	if r.Mentions == nil || p.Typed == "" {
		return msg, ""
	}
	expanded, atts := r.Mentions.Expand(ctx, session, p.Typed)
	extra := strings.TrimPrefix(expanded, p.Typed)
	if extra != "" {
		parts := append([]providers.Part(nil), msg.Parts...)
		last := -1
		for i, part := range parts {
			if _, ok := part.(providers.Text); ok {
				last = i
			}
		}
		if last < 0 {
			parts = append(parts, providers.Text{Text: strings.TrimLeft(extra, "\n")})
		} else {
			parts[last] = providers.Text{Text: parts[last].(providers.Text).Text + extra}
		}
		msg.Parts = parts
	}
	for _, a := range atts {
		for _, img := range a.Images {
			msg.Parts = append(msg.Parts, providers.Image{MediaType: img.MediaType, Data: img.Data})
		}
	}
	return msg, mention.Note(atts)
}

// begin marks the session running and titles an untitled one from the
// typed prompt.
func (r *Runner) begin(ctx context.Context, id string, p Prompt) error {
	if r.Sessions == nil || id == "" {
		return nil
	}
	if title, ok := r.takeCreated(id); ok {
		sess := &sessions.Session{Summary: sessions.Summary{Title: title, Status: sessions.StatusRunning}}
		return r.record(ctx, id, p, sess)
	}
	sess, err := r.Sessions.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("saving the session: %w", err)
	}
	return r.record(ctx, id, p, sess)
}

// record gives session id, as sess is, the title of prompt p when it has
// none, and the status running when it is not.
func (r *Runner) record(ctx context.Context, id string, p Prompt, sess *sessions.Session) error {
	if sess.Title == "" {
		text := p.Typed
		if text == "" {
			text = p.Message.Text()
		}
		if err := r.Sessions.SetTitle(ctx, id, sessions.TitleFromPrompt(text)); err != nil {
			return fmt.Errorf("saving the session: %w", err)
		}
	}
	if sess.Status == sessions.StatusRunning {
		return nil // a new session is created running: no write for it
	}
	if err := r.Sessions.SetStatus(ctx, id, sessions.StatusRunning); err != nil {
		return fmt.Errorf("saving the session: %w", err)
	}
	return nil
}

// end records the session's status after a turn that ended for reason.
func (r *Runner) end(ctx context.Context, id string, reason loop.StopReason) error {
	if r.Sessions == nil || id == "" {
		return nil
	}
	if err := r.Sessions.SetStatus(ctx, id, Status(reason)); err != nil {
		return fmt.Errorf("saving the session: %w", err)
	}
	return nil
}

// Status is the session's status after a turn that ended for reason.
func Status(reason loop.StopReason) sessions.Status {
	switch reason {
	case loop.StopCancelled:
		return sessions.StatusCancelled
	case loop.StopBudget:
		return sessions.StatusBudget
	case loop.StopError, loop.StopMaxTokens, loop.StopContextFull, loop.StopRefused, loop.StopStructuredOutput:
		return sessions.StatusFailed
	}
	return sessions.StatusCompleted
}
