package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/host"
	"github.com/agent-dev/agent/sessions"
)

// parseAge reads sessions rm's --older-than: a Go duration ("12h",
// "90m") or a number of days ("30d"), more than zero. Anything else is a
// usage error.
func parseAge(v string) (time.Duration, error) {
	var age time.Duration
	var err error
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int
		if n, err = strconv.Atoi(days); err == nil {
			age = time.Duration(n) * 24 * time.Hour
		}
	} else {
		age, err = time.ParseDuration(v)
	}
	if err != nil || age <= 0 {
		return 0, usagef("--older-than %q: want a number of days (30d) or a duration (12h)", v)
	}
	return age, nil
}

// removeOlder deletes the top-level sessions last updated more than age
// ago, with their subagents' sessions, and says on out what went: one
// line a session and a total. A session another live process holds is
// kept, and said so; the others go even when one could not be deleted,
// whose error is returned.
func removeOlder(ctx context.Context, s *sessions.Store, age time.Duration, out io.Writer) error {
	list, err := s.List(ctx, sessions.ListOptions{})
	if err != nil {
		return err
	}
	cutoff := time.Now().Add(-age)
	var b strings.Builder
	removed, messages := 0, 0
	var errs []error
	for _, ss := range list {
		if !ss.UpdatedAt.Before(cutoff) {
			continue
		}
		if err := s.Acquire(ctx, ss.ID); err != nil {
			var held *sessions.LeaseError
			if errors.As(err, &held) {
				fmt.Fprintf(&b, "kept session %s: in use by process %d\n", ss.ID, held.Holder.PID)
				continue
			}
			errs = append(errs, err)
			continue
		}
		if err := s.Delete(ctx, ss.ID); err != nil {
			errs = append(errs, host.SessionError(err))
			continue
		}
		removed++
		messages += ss.Messages
		fmt.Fprintf(&b, "removed session %s: %s (%d messages, %s, last used %s)\n",
			ss.ID, orUntitled(ss.Title), ss.Messages, ss.Dir, ss.UpdatedAt.Local().Format("2006-01-02"))
	}
	noun := "sessions"
	if removed == 1 {
		noun = "session"
	}
	fmt.Fprintf(&b, "removed %d %s (%d messages) last used before %s\n",
		removed, noun, messages, cutoff.Local().Format("2006-01-02 15:04"))
	if err := writeOut(out, b.String()); err != nil {
		return err
	}
	return errors.Join(errs...)
}
