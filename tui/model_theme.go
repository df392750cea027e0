package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/prefs"
)

// themeState is what the interface knows of its theme and of the
// terminal's background.
type themeState struct {
	// chosen is the theme in force as named: "auto", a built-in theme's
	// or a theme file's name.
	chosen string
	// bg is the terminal's background, "dark" or "light", as it answered
	// OSC 11 or as Prefs remembered it for this terminal; "" not known.
	bg string
	// asking is true while an OSC 11 question is out and its timeout has
	// not passed.
	asking bool
	// remembered is the background Prefs holds for this terminal.
	remembered string
	// dir is where theme files are ("" when no directory is known); term
	// is the terminal's key in Prefs.Backgrounds (TERM_PROGRAM, else
	// TERM; "" remembers nothing).
	dir, term string
}

// backgroundTimeout is how long the interface waits for the terminal to
// answer OSC 11 before it settles on a dark background. A terminal that
// never answers costs nothing but the question: the interface draws in the
// dark theme from the start and does not wait to draw.
const backgroundTimeout = time.Second

// bgTimeoutMsg says backgroundTimeout passed since the question.
type bgTimeoutMsg struct{}

// themeLoadedMsg carries the theme /theme NAME named, or why it cannot be.
type themeLoadedMsg struct {
	name string
	t    *theme // nil for auto and on error
	err  error
}

// themesListedMsg carries the theme files for /theme's list.
type themesListedMsg struct{ files []string }

// prefsErrMsg says the prefs file could not be written.
type prefsErrMsg struct{ err error }

// termKey is the terminal's name for Prefs.Backgrounds: TERM_PROGRAM,
// else TERM; "" when neither is set.
func termKey(getenv func(string) string) string {
	if t := getenv("TERM_PROGRAM"); t != "" {
		return t
	}
	return getenv("TERM")
}

// initTheme chooses the theme at start: the config file's (Config.Theme),
// else the one /theme chose last (Prefs), else auto. A name that names no
// theme, or a theme file with a mistake, is one note and auto. Auto takes
// the background Prefs remembers for this terminal, else dark until the
// terminal answers (Init asks).
func (m *Model) initTheme() {
	ts := &m.theme
	ts.dir, ts.term = themesDir(os.Getenv), termKey(os.Getenv)
	var p prefs.Prefs
	if m.cfg.Prefs != nil {
		var err error
		if p, err = m.cfg.Prefs.Load(); err != nil {
			m.chat.append(newNoteItem(m.st, fmt.Sprintf("The remembered choices are not used: %v.", err)))
		}
	}
	if bg := p.Backgrounds[ts.term]; ts.term != "" && (bg == "dark" || bg == "light") {
		ts.bg, ts.remembered = bg, bg
	}
	name, from := m.cfg.Theme, "the config file's theme"
	if name == "" {
		name, from = p.Theme, "the theme chosen with /theme"
	}
	ts.chosen = autoTheme
	if name == "" || name == autoTheme {
		ts.asking = ts.bg == ""
		m.applyTheme(m.resolvedTheme())
		return
	}
	t, err := loadTheme(ts.dir, name)
	if err != nil {
		m.chat.append(newNoteItem(m.st, fmt.Sprintf("Theme: %s: %v. Using auto.", from, err)))
		ts.asking = ts.bg == ""
		m.applyTheme(m.resolvedTheme())
		return
	}
	ts.chosen = name
	m.applyTheme(t)
}

// themeInit is Init's part: the OSC 11 question and its timeout, when the
// theme is auto and the background is not known.
func (m *Model) themeInit() tea.Cmd {
	if !m.theme.asking {
		return nil
	}
	return m.askBackground()
}

// askBackground asks the terminal for its background (OSC 11) and starts
// the timeout.
func (m *Model) askBackground() tea.Cmd {
	m.theme.asking = true
	return tea.Batch(tea.RequestBackgroundColor,
		tea.Tick(backgroundTimeout, func(time.Time) tea.Msg { return bgTimeoutMsg{} }))
}

// resolvedTheme is auto's theme: dark or light as the background is, dark
// while it is not known.
func (m *Model) resolvedTheme() *theme {
	if m.theme.bg == "light" {
		return builtinTheme("light")
	}
	return builtinTheme("dark")
}

// applyTheme switches every style to theme t; everything drawn (chat items,
// tool blocks, answers' markdown) is drawn again with the new colours.
func (m *Model) applyTheme(t *theme) {
	*m.st = *themeStyles(t)
	for i := range m.chat.len() {
		if r, ok := m.chat.at(i).(restyler); ok {
			r.restyle()
		}
	}
	m.input.SetStyles(textarea.DefaultStyles(t.dark))
	m.help.Styles = help.DefaultStyles(t.dark)
}

// onTheme handles the theme's messages.
func (m *Model) onTheme(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		return m.backgroundAnswered(msg.IsDark())
	case bgTimeoutMsg:
		// No answer (yet): the dark theme stays. A late answer is still
		// taken when it comes.
		m.theme.asking = false
	case themeLoadedMsg:
		return m.themeLoaded(msg)
	case themesListedMsg:
		return m.showNote(m.themeList(msg.files))
	case prefsErrMsg:
		return m.showNote(fmt.Sprintf("The choice is not remembered: %v.", msg.err))
	}
	return nil
}

// backgroundAnswered takes the terminal's answer to OSC 11: auto follows
// it at once, and it is remembered for this terminal.
func (m *Model) backgroundAnswered(dark bool) tea.Cmd {
	bg := "light"
	if dark {
		bg = "dark"
	}
	ts := &m.theme
	ts.asking = false
	ts.bg = bg
	if ts.chosen == autoTheme && m.st.Theme != bg {
		m.applyTheme(m.resolvedTheme())
	}
	if ts.term == "" || m.cfg.Prefs == nil || ts.remembered == bg {
		return nil
	}
	ts.remembered = bg
	f, term := m.cfg.Prefs, ts.term
	return func() tea.Msg {
		err := f.Update(func(p *prefs.Prefs) {
			if p.Backgrounds == nil {
				p.Backgrounds = map[string]string{}
			}
			p.Backgrounds[term] = bg
		})
		if err != nil {
			return prefsErrMsg{err}
		}
		return nil
	}
}

// themeCommand is /theme [NAME]: switch to NAME at once, or list the
// themes with the one in force marked.
func (m *Model) themeCommand(arg string) tea.Cmd {
	dir := m.theme.dir
	if arg == "" {
		return func() tea.Msg { return themesListedMsg{themeFiles(dir)} }
	}
	if arg == autoTheme {
		return func() tea.Msg { return themeLoadedMsg{name: arg} }
	}
	return func() tea.Msg {
		t, err := loadTheme(dir, arg)
		return themeLoadedMsg{name: arg, t: t, err: err}
	}
}

// themeLoaded applies the theme /theme named and remembers it, unless the
// config file names one (which returns at the next start).
func (m *Model) themeLoaded(msg themeLoadedMsg) tea.Cmd {
	if msg.err != nil {
		return m.showNote(fmt.Sprintf("Theme: %v. The theme stays %s.", msg.err, m.theme.chosen))
	}
	m.theme.chosen = msg.name
	var cmds []tea.Cmd
	text := "Theme: " + msg.name
	if msg.t != nil {
		m.applyTheme(msg.t)
	} else {
		// The terminal is asked again: its background may have changed
		// since it was remembered; the answer switches at once.
		m.applyTheme(m.resolvedTheme())
		if m.theme.bg == "" {
			text += " (dark until the terminal says its background)"
		} else {
			text += " (" + m.theme.bg + ", the terminal's background; asked again)"
		}
		if !m.theme.asking {
			cmds = append(cmds, m.askBackground())
		}
	}
	text += "."
	switch {
	case m.cfg.Theme != "":
		text += fmt.Sprintf(" The config file's theme, %s, returns at the next start.", m.cfg.Theme)
	case m.cfg.Prefs != nil:
		f, name := m.cfg.Prefs, msg.name
		cmds = append(cmds, func() tea.Msg {
			if err := f.Update(func(p *prefs.Prefs) { p.Theme = name }); err != nil {
				return prefsErrMsg{err}
			}
			return nil
		})
	}
	m.showNote(text)
	return tea.Batch(cmds...)
}

// themeList is /theme's list: every theme, the one in force marked.
func (m *Model) themeList(files []string) string {
	var b strings.Builder
	b.WriteString("Themes (/theme NAME switches; theme files are in ")
	if m.theme.dir == "" {
		b.WriteString("no directory: neither XDG_CONFIG_HOME nor HOME is set")
	} else {
		b.WriteString(m.theme.dir)
	}
	b.WriteString("):")
	line := func(name, what string) {
		mark := "  "
		if name == m.theme.chosen {
			mark = "* "
		}
		b.WriteString("\n" + mark + name + what)
	}
	for _, name := range builtinThemes {
		what := ""
		if name == autoTheme {
			what = " (the terminal's background: "
			if m.theme.bg == "" {
				what += "not known, dark)"
			} else {
				what += m.theme.bg + ")"
			}
		}
		line(name, what)
	}
	for _, name := range files {
		line(name, " (theme file)")
	}
	return b.String()
}
