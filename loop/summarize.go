package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/conversation"
	"github.com/agent-dev/agent/providers"
)

// SummarizeFrom asks the model for a summary of conv's messages from
// Messages()[from] on, for a rewind that summarizes the conversation from
// a prompt: the request is the one a turn would send (its system prompt
// and tools, so the prompt cache serves it) with a request for the summary
// after it and tool calls forbidden. The usage is added to conv. It fails
// when from is out of range, the model returns nothing or is cut off, or
// the request fails; cancelling ctx cancels the request.
func (l *Loop) SummarizeFrom(ctx context.Context, conv *conversation.Conversation, from int) (string, error) {
	msgs := conv.Messages()
	if from < 0 || from >= len(msgs) {
		return "", fmt.Errorf("summarizing from message %d of %d", from, len(msgs))
	}
	t, ch := l.start(ctx, conv)
	go func() {
		for range ch { // retries' events: nobody shows them
		}
	}()
	defer close(ch)
	if err := t.allow(); err != nil {
		return "", err
	}
	req := t.request()
	first, _, _ := strings.Cut(strings.TrimSpace(msgs[from].Text()), "\n")
	req.Messages = append(msgs[:len(msgs):len(msgs)], userMessage(summarizeFromPrompt(first)))
	req.ToolChoice = providers.ToolChoiceNone
	ctx, traced := t.traceRequest(0, true, req)
	resp, err := t.stream(ctx, req, t.forwardRetries)
	traced(resp, err)
	if resp != nil {
		t.addUsage(0, resp.Usage)
		if uerr := conv.AddUsage(context.WithoutCancel(ctx), resp.Usage); uerr != nil && err == nil {
			err = uerr
		}
	}
	if err != nil {
		return "", fmt.Errorf("asking for a summary: %w", err)
	}
	if resp.FinishReason == providers.FinishLength {
		return "", errors.New("the summary was cut off by the model's output limit")
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary, nil
}

// summarizeFromPrompt asks for the summary of the conversation from the
// prompt whose first line is first.
func summarizeFromPrompt(first string) string {
	return "The person is rewinding this conversation to their message that begins \"" + first + "\": that message and " +
		"everything after it will be replaced by your summary, and the work goes on from there. The files stay as they " +
		"are now. Write the summary now, without calling tools: what was asked from that message on, what was decided, " +
		"the files changed (exact paths) and how, what is done and verified, and what is left. Be specific but brief."
}

// SummaryFromPrefix opens the user message that stands for the part of a
// conversation a rewind summarized.
const SummaryFromPrefix = "The conversation went on from here; at the person's request that part was rewound and " +
	"replaced by this summary of it:\n\n"
