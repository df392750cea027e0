package tui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
)

// frameInterval is the shortest time between two batches of a turn's
// events, so a streaming answer is drawn at most 20 times a second. Each
// batch costs an Update, a View (the answer's unfinished tail rendered
// again by glamour) and a frame Bubble Tea compares and writes, together
// about 1-2 ms; deltas that arrive within one interval share them. At 20 a
// second a 5,000-delta answer costs under half of Crush's CPU
// (bench/stream.sh, BENCHMARKS.md); 30 a second cost 0.5-0.6x, 60 about
// 0.6x. Text arriving in 50 ms steps still reads as smooth, and the first
// event after a quiet spell is drawn at once.
const frameInterval = time.Second / 20

// waitEvent waits for the next event of the running turn and delivers it
// no sooner than notBefore, with every event that arrived in the meantime,
// so that a stream of deltas costs at most one Update and one View per
// frame. Until notBefore it sleeps rather than receives: the events wait in
// the channel's buffer, and the loop sending them wakes nobody. An event
// after a quiet spell (notBefore has passed, or is zero) is delivered at
// once, with the events already waiting behind it. At most maxEventBatch
// events are read. A closed channel gives turnClosedMsg (after the events
// read before it). See nextFrame for when the next wait may sleep.
func waitEvent(ch <-chan loop.Event, notBefore time.Time) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return turnClosedMsg{ch}
		}
		if wait := time.Until(notBefore); wait > 0 {
			time.Sleep(wait)
		}
		evs := []loop.Event{ev}
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{ch, evs} // the next wait sees the close
				}
				evs = append(evs, ev)
			default:
				return eventsMsg{ch, evs}
			}
		}
		return eventsMsg{ch, evs}
	}
}

// nextFrame returns when the batch after msg may be delivered: a frame
// after now, unless msg found the channel's buffer full (a sender was
// probably waiting: the events come faster than a buffer a frame), in
// which case the next batch is taken as soon as it is there, as an
// unbuffered channel's always are.
func nextFrame(msg eventsMsg, now time.Time) time.Time {
	if len(msg.evs) > cap(msg.ch) {
		return time.Time{}
	}
	return now.Add(frameInterval)
}

// waitApproval reads the next approval question.
func waitApproval(a *Approver) tea.Cmd {
	return func() tea.Msg { return approvalMsg{<-a.requests} }
}

// waitNotice reads the next notice; a closed channel ends the reading.
func waitNotice(ch <-chan string) tea.Cmd {
	return func() tea.Msg {
		if text, ok := <-ch; ok {
			return noticeMsg{text}
		}
		return nil
	}
}

// tick delivers the spinner's next tick of turn once tickInterval has
// passed since the spinner was last brought up to date (spun, Unix
// nanoseconds, which Update stores). While a stream's batches of events
// arrive (20 a second) each of them advances the spinner, so the tick keeps
// waiting and costs no Update and no View of its own: Bubble Tea draws
// every message's View, and a tick's would show only the spinner's next
// frame. A quiet turn (a tool running, the model thinking) gets a tick
// every tickInterval as before.
func tick(turn int, spun *atomic.Int64) tea.Cmd {
	return func() tea.Msg {
		for {
			wait := time.Until(time.Unix(0, spun.Load()).Add(tickInterval))
			if wait <= 0 {
				return tickMsg{turn}
			}
			time.Sleep(wait)
		}
	}
}

// spin shows the spinner's frame and the elapsed time of the running turn
// at now: the frame is the number of tickIntervals since the turn
// started, whether ticks or batches of events bring it up to date.
func (m *Model) spin(now time.Time) {
	elapsed := now.Sub(m.started)
	m.frame = int(elapsed / tickInterval)
	m.bar.setRunning(true, elapsed, m.frame)
	for _, b := range m.order {
		b.setFrame(m.frame)
	}
	m.childTick(now)
	m.spun.Store(now.UnixNano())
}

// block returns the block of a tool call, adding it to the pane when new,
// read as sum says.
func (m *Model) block(id, name string, sum tools.Summary) *toolBlock {
	if b, ok := m.blocks[id]; ok {
		return b
	}
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	b := newToolBlock(m.st, id, name, sum)
	m.blocks[id] = b
	m.order = append(m.order, b)
	m.chat.append(b)
	return b
}

// handleEvent applies one loop event to the conversation pane.
func (m *Model) handleEvent(ev loop.Event) tea.Cmd {
	switch ev.(type) {
	case loop.TextDelta, loop.ReasoningDelta, loop.ToolCallStarted, loop.Usage:
		m.retrySucceeded()
	}
	switch ev := ev.(type) {
	case loop.TextDelta:
		m.assistant().appendText(ev.Text)
	case loop.ReasoningDelta:
		m.assistant().appendReasoning(ev.Text)
	case loop.ToolCallStarted:
		m.ranCommands = m.ranCommands || ev.Effects.Has(tools.RunsCommands)
		if !ev.Toolset {
			m.block(ev.ID, ev.Name, ev.Summary).commands = ev.Effects.Has(tools.RunsCommands)
		}
	case loop.ToolProgress:
		if b, ok := m.blocks[ev.ID]; ok && b.running() {
			b.setProgress(ev.Text)
		}
		if se, ok := ev.Detail.(loop.ChildEvent); ok {
			m.subagentEvent(se)
		}
	case loop.Notice:
		m.noteAfterText(ev.Text)
	case loop.ToolCallFinished:
		m.toolFinished(ev)
	case loop.ToolsetChanged:
		if len(ev.Added) > 0 {
			m.noteAfterText("Picked " + strings.Join(ev.Added, ", ") + ".")
		}
	case loop.Retry:
		m.showRetry(ev)
		return nil
	case loop.FellBack:
		m.showFallback(ev)
	case loop.Usage:
		m.bar.addUsage(ev.Usage.InputTokens, ev.Usage.OutputTokens)
		m.addCost(ev.Model, ev.Usage)
		m.sl.lastUsage = ev.Usage
		return m.refreshStatusLine()
	case loop.Compacting, loop.Compacted:
		m.compactionEvent(ev)
	case loop.WebSearch, loop.Citation:
		m.webEvent(ev)
	case loop.Done:
		m.refreshDiagnostics()
		m.showSources()
		return m.endTurn(ev)
	}
	return nil
}

// toolFinished shows a call's result in its block (or, for a call that
// changes the toolset, only its failure), and what the result changes
// beyond it: a todo list, the permission mode an approved plan chose.
func (m *Model) toolFinished(ev loop.ToolCallFinished) {
	if items, ok := tools.Todos(ev.Meta); ok && !ev.IsError {
		m.todos.set(items)
	}
	if mode, ok := ev.Meta[tools.MetaPermissionMode].(string); ok && mode != "" {
		m.bar.mode = mode // an approved plan switched the mode
	}
	m.refreshDiagnostics()
	if diff, ok := ev.Meta[tools.MetaDiff].(string); ok && !ev.IsError {
		m.sl.countLines(diff)
	}
	switch {
	case !ev.Toolset:
		m.block(ev.ID, ev.Name, tools.Summary{}).finish(ev.Content, ev.IsError, ev.Duration, ev.Meta)
	case ev.IsError:
		m.chat.append(newErrorItem(m.st, ev.Name+": "+ev.Content))
	}
}

// compactionEvent notes a compaction's start and its end.
func (m *Model) compactionEvent(ev loop.Event) {
	switch ev := ev.(type) {
	case loop.Compacting:
		what := "Compacting the conversation"
		if ev.Auto {
			what = fmt.Sprintf("The context window is nearly full (about %s tokens): compacting the conversation", formatTokens(ev.BeforeTokens))
		}
		m.noteAfterText(what + "…")
	case loop.Compacted:
		m.bar.context = ev.AfterTokens
		m.noteAfterText(fmt.Sprintf("Compacted: about %s → %s tokens. The older messages are replaced by a summary (/context shows the window).",
			formatTokens(ev.BeforeTokens), formatTokens(ev.AfterTokens)))
	}
}

// showRetry shows a retry of the provider in one note that each further
// retry of the same request updates. When the failed attempt had already
// streamed text, that text is void: the retried answer starts a new message
// below the note.
func (m *Model) showRetry(ev loop.Retry) {
	m.retryDiscarded = m.retryDiscarded || ev.Discarded
	note := fmt.Sprintf("Retrying in %s (%d/%d): %s", ev.Delay.Round(100*time.Millisecond), ev.Attempt, ev.Max, ev.Err)
	if m.retryDiscarded {
		note += ". The partial answer above is discarded."
	}
	if ev.Discarded && m.current != nil {
		m.current.finish()
		m.current = nil
	}
	if m.retryNote != nil {
		m.retryNote.setText(note)
		return
	}
	m.retryNote = newNoteItem(m.st, note)
	m.chat.append(m.retryNote)
}

// showFallback says that the turn moved to a fallback model: the retry
// note of the failed model gives way to it, and text the failed attempt
// streamed is void (the answer below is the fallback's).
func (m *Model) showFallback(ev loop.FellBack) {
	// A retry that voided text said so in its note, which goes now.
	discarded := ev.Discarded || m.retryDiscarded
	if m.retryNote != nil {
		m.chat.remove(m.retryNote)
		m.retryNote, m.retryDiscarded = nil, false
	}
	note := fmt.Sprintf("%s failed after its retries (%s): this turn goes on with %s.", ev.From, ev.Err, ev.To)
	if discarded {
		note += " The partial answer above is discarded."
	}
	m.noteAfterText(note)
}

// retrySucceeded ends the retry note once the retried request answers: it
// goes, unless it must say that the text above it was discarded.
func (m *Model) retrySucceeded() {
	if m.retryNote == nil {
		return
	}
	if m.retryDiscarded {
		m.retryNote.setText("The partial answer above is discarded (its stream was cut off); the answer below is the retried one.")
	} else {
		m.chat.remove(m.retryNote)
	}
	m.retryNote, m.retryDiscarded = nil, false
}

// noteAfterText adds a note; the assistant message so far is finished, so
// text after the note starts a new message below it.
func (m *Model) noteAfterText(text string) {
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.chat.append(newNoteItem(m.st, text))
}

// assistant returns the assistant message that deltas go to, starting one
// after a tool block.
func (m *Model) assistant() *assistantItem {
	if m.current == nil {
		m.current = newAssistantItem(m.st)
		m.chat.append(m.current)
	}
	return m.current
}

// endTurn records the turn's messages and says how it ended. A question
// still waiting (it arrived as the turn was cancelled) is answered no.
func (m *Model) endTurn(d loop.Done) tea.Cmd {
	m.compacting = false
	if m.current != nil {
		m.current.finish()
		m.current = nil
	}
	m.running, m.cancel = false, nil
	m.keys.running = false
	m.retryNote, m.retryDiscarded = nil, false // a failed turn keeps its last retry note
	var cmds []tea.Cmd
	if m.approving != nil {
		cmds = append(cmds, m.answer(approvalAnswer{}))
	}
	if d.Err != nil && (d.Reason == loop.StopAnswered || d.Reason == loop.StopMaxSteps) {
		// The turn ended well but its end could not be recorded.
		m.chat.append(newErrorItem(m.st, "Session: "+d.Err.Error()))
	}
	if m.ranCommands {
		m.ranCommands = false
		cmds = append(cmds, gitStatus(m.cfg.Dir))
	}
	m.sl.api += d.Duration
	cmds = append(cmds, m.refreshStatusLine())
	if d.Reason != loop.StopCancelled { // a cancel is the person's own, at the keyboard
		cmds = append(cmds, m.notify(m.now().Sub(m.started), turnNotification(string(d.Reason), d.Answer)))
	}
	cmd := tea.Batch(cmds...)
	m.bar.setRunning(false, 0, 0)
	switch d.Reason {
	case loop.StopCancelled:
		m.chat.append(newNoteItem(m.st, "Cancelled."))
	case loop.StopError:
		m.chat.append(newErrorItem(m.st, "Error: "+errText(d.Err)))
	case loop.StopMaxTokens:
		m.chat.append(newErrorItem(m.st, fmt.Sprintf("The response was cut off by the model's output limit %d times in a row, so the turn stopped. Ask for a shorter answer or smaller steps.", loop.MaxContinuations+1)))
	case loop.StopRefused:
		m.chat.append(newErrorItem(m.st, "The model declined to answer."))
	case loop.StopContextFull:
		m.chat.append(newErrorItem(m.st, "The conversation no longer fits: "+errText(d.Err)))
	case loop.StopMaxSteps:
		m.chat.append(newErrorItem(m.st, fmt.Sprintf("Stopped after %d steps (the step limit, --max-steps) before a final answer.", d.Steps)))
	case loop.StopBudget:
		m.chat.append(newErrorItem(m.st, "Stopped: "+errText(d.Err)+"."))
	}
	// The queue goes on after an answer; after any other end (cancelled,
	// failed, cut off, at the step limit) it waits to be sent on purpose.
	if d.Reason == loop.StopAnswered {
		return tea.Batch(cmd, m.sendQueued())
	}
	m.keepQueueNote()
	return cmd
}

// keepQueueNote shows, as the last note, that the queued prompts wait (see
// queueKept), and takes the one shown before away: after Ctrl+X dropped
// one, or Enter sent one, it no longer says what waits.
func (m *Model) keepQueueNote() {
	if m.queueNote != nil {
		m.chat.remove(m.queueNote)
		m.queueNote = nil
	}
	if kept := m.queueKept(); kept != "" {
		m.queueNote = newNoteItem(m.st, kept)
		m.chat.append(m.queueNote)
	}
}

// queueKept says, when prompts are queued, that they wait after a turn
// that ended without an answer, and how to send them; "" when none are
// queued.
func (m *Model) queueKept() string {
	switch n := m.queue.len(); n {
	case 0:
		return ""
	case 1:
		return "The queued prompt waits: Enter sends it, ↑ edits it, ctrl+x drops it."
	default:
		return fmt.Sprintf("%d queued prompts wait: Enter sends the next, ↑ edits the last, ctrl+x drops it.", n)
	}
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
