package host

import (
	"fmt"
	"time"
)

// interfaceFile are the config file's keys for the interface:
//
//	theme = "auto"              # dark, light, auto, dracula, solarized-dark, solarized-light, high-contrast, or a theme file's name
//	vim = true                  # vim keys in the input (/vim switches)
//	notifications = "auto"      # osc9, osc777, bell, off: how a finished turn or a waiting question is told while the terminal is not focused
//	notify_after = "30s"        # also tell when a turn ran this long although the terminal did not say it lost focus ("0s": never)
//	status_line = { command = "~/.config/agent/statusline.sh", padding = 0, timeout = "5s" }
type interfaceFile struct {
	Theme         string          `toml:"theme"`
	Vim           *bool           `toml:"vim"`
	Notifications string          `toml:"notifications"`
	NotifyAfter   string          `toml:"notify_after"`
	StatusLine    *StatusLineFile `toml:"status_line"`
}

// StatusLineFile is status_line in the config file: a command run with
// Claude Code's status line JSON on its standard input whose first line of
// output is the status line (Claude Code's statusLine, type "command").
type StatusLineFile struct {
	// Command is run with bash in the working directory, as the person.
	Command string `toml:"command"`
	// Padding is the columns left before the line (Claude Code's padding).
	Padding int `toml:"padding"`
	// TimeoutText is how long one run may take (a Go duration; default
	// "5s"), Timeout the parsed value.
	TimeoutText string        `toml:"timeout"`
	Timeout     time.Duration `toml:"-"`
}

// InterfaceSettings are the resolved interface keys of the config file;
// the interface itself decides what a theme name means.
type InterfaceSettings struct {
	// Theme is the theme named by the config file; "" names none (the
	// one chosen last with /theme, else auto).
	Theme string
	// Vim is whether the input takes vim keys; nil: the config file does
	// not say (the choice of /vim, else off).
	Vim *bool
	// Notifications is how the terminal is told: "auto" (chosen from
	// the terminal), "osc9", "osc777", "bell" or "off".
	Notifications string
	// NotifyAfter is the length of a turn after which it is told as it
	// ends even when the terminal reported no loss of focus (0: never).
	NotifyAfter time.Duration
	// StatusLine is the config file's status line command; nil: none
	// (Claude Code's statusLine may still give one).
	StatusLine *StatusLineFile
}

// defaultNotifyAfter is notify_after when the config file does not set it.
const defaultNotifyAfter = 30 * time.Second

// resolveInterface checks the interface keys of the config file.
func (s *Settings) resolveInterface(f interfaceFile, where string) error {
	s.Interface = InterfaceSettings{Theme: f.Theme, Vim: f.Vim, Notifications: f.Notifications, NotifyAfter: defaultNotifyAfter, StatusLine: f.StatusLine}
	switch f.Notifications {
	case "":
		s.Interface.Notifications = "auto"
	case "auto", "osc9", "osc777", "bell", "off":
	default:
		return usagef("%s: notifications = %q: want auto, osc9, osc777, bell or off", where, f.Notifications)
	}
	if f.NotifyAfter != "" {
		d, err := time.ParseDuration(f.NotifyAfter)
		if err != nil || d < 0 {
			return usagef("%s: notify_after = %q: want a duration such as \"30s\" (\"0s\": never)", where, f.NotifyAfter)
		}
		s.Interface.NotifyAfter = d
	}
	if sl := f.StatusLine; sl != nil {
		if sl.Command == "" {
			return usagef("%s: status_line has no command", where)
		}
		if sl.Padding < 0 {
			return usagef("%s: status_line padding = %d: want 0 or more", where, sl.Padding)
		}
		if sl.TimeoutText != "" {
			d, err := time.ParseDuration(sl.TimeoutText)
			if err != nil || d <= 0 {
				return usagef("%s: status_line timeout = %q: want a duration such as \"2s\"", where, sl.TimeoutText)
			}
			sl.Timeout = d
		}
	}
	return nil
}

// String is the settings in one line, for agent doctor.
func (i InterfaceSettings) String() string {
	vim := "off"
	if i.Vim != nil && *i.Vim {
		vim = "on"
	}
	return fmt.Sprintf("theme %q, vim %s, notifications %s after %s", i.Theme, vim, i.Notifications, i.NotifyAfter)
}
