package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/prefs"
	"github.com/agent-dev/agent/providers/fake"
)

// themeEnv gives a test a theme directory and a terminal of its own, and
// returns the theme directory.
func themeEnv(t *testing.T) string {
	t.Helper()
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("TERM_PROGRAM", "TestTerm")
	dir := filepath.Join(cfgHome, "agent", "themes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// themeDriver starts the interface with the config file's theme (""
// for none) and a prefs file holding p.
func themeDriver(t *testing.T, configTheme string, p prefs.Prefs) (*driver, *prefs.File) {
	t.Helper()
	f := prefs.Open(filepath.Join(t.TempDir(), "prefs.json"))
	if err := f.Update(func(q *prefs.Prefs) { *q = p }); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Theme, cfg.Prefs = configTheme, f
	return newDriver(t, cfg), f
}

func loadPrefs(t *testing.T, f *prefs.File) prefs.Prefs {
	t.Helper()
	p, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The config file's theme wins; else the one /theme chose; else auto.
func TestThemeComesFromTheConfigThenThePrefsThenAuto(t *testing.T) {
	themeEnv(t)
	for _, tc := range []struct {
		config, remembered, want string
	}{
		{"dracula", "light", "dracula"},
		{"", "solarized-light", "solarized-light"},
		{"", "", "dark"}, // auto, the background not known yet
	} {
		d, _ := themeDriver(t, tc.config, prefs.Prefs{Theme: tc.remembered})
		if d.m.st.Theme != tc.want {
			t.Errorf("config %q, remembered %q: theme %q, want %q", tc.config, tc.remembered, d.m.st.Theme, tc.want)
		}
	}
}

// A name that names no theme, or a theme file with a mistake, is one note
// and auto; never a failure to start.
func TestUnknownOrBrokenThemeIsANoteAndAuto(t *testing.T) {
	dir := themeEnv(t)
	write(t, filepath.Join(dir, "typo.toml"), "base = \"dracula\"\n[colors]\nuser_mrk = \"#ffffff\"\n")
	write(t, filepath.Join(dir, "badbase.toml"), "base = \"monokai\"\n")
	write(t, filepath.Join(dir, "badcolour.toml"), "[colors]\nuser = \"red\"\n")
	write(t, filepath.Join(dir, "notoml.toml"), "base = \n")
	for name, want := range map[string]string{
		"nosuch":    `unknown theme "nosuch"`,
		"../etc":    `unknown theme "../etc"`,
		"typo":      "colors.user_mrk: no such role",
		"badbase":   `base = "monokai": want one of dark, light, dracula`,
		"badcolour": `colors.user: "red": want "#RRGGBB"`,
		"notoml":    "notoml.toml",
	} {
		d, _ := themeDriver(t, name, prefs.Prefs{})
		untilSays(d, "Using auto.")
		if s := d.screen(); !strings.Contains(squash(s), want) {
			t.Errorf("%s: the note does not say %q:\n%s", name, want, s)
		}
		if d.m.st.Theme != "dark" || d.m.theme.chosen != autoTheme {
			t.Errorf("%s: theme %q (%s), want auto's dark", name, d.m.st.Theme, d.m.theme.chosen)
		}
	}
}

// untilSays waits until the screen says text, however its lines wrap.
func untilSays(d *driver, text string) {
	d.t.Helper()
	d.until(text, func(s string) bool { return strings.Contains(squash(s), text) })
}

// squash is s with every run of white space one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A theme file starts from its base and colours the roles it names.
func TestThemeFileOverridesItsBase(t *testing.T) {
	dir := themeEnv(t)
	write(t, filepath.Join(dir, "mine.toml"), "# my colours\nbase = \"solarized-light\"\n\n[colors]\nuser_mark = \"#FF0000\"\ntool_name = 13\n")
	d, _ := themeDriver(t, "mine", prefs.Prefs{})
	if d.m.st.Theme != "mine" || d.m.st.Dark {
		t.Fatalf("theme %q (dark %v), want mine on solarized-light", d.m.st.Theme, d.m.st.Dark)
	}
	if got := d.m.st.UserMark.Render("x"); !strings.Contains(got, "38;2;255;0;0") {
		t.Errorf("user_mark drawn %q, want #FF0000", got)
	}
	if got := d.m.st.ToolName.Render("x"); !strings.Contains(got, "95") && !strings.Contains(got, "38;5;13") {
		t.Errorf("tool_name drawn %q, want ANSI 13", got)
	}
	base := themeStyles(builtinTheme("solarized-light"))
	if d.m.st.ToolOK.Render("x") != base.ToolOK.Render("x") || d.m.st.Markdown.Style() != base.Markdown.Style() {
		t.Error("the roles the file leaves alone are not its base's")
	}
}

// /theme NAME redraws what is on the screen at once and is remembered;
// the next start takes it.
func TestThemeCommandSwitchesRedrawsAndRemembers(t *testing.T) {
	themeEnv(t)
	d, f := themeDriver(t, "", prefs.Prefs{})
	d.m.chat.append(newUserItem(d.m.st, "colour me"))
	d.untilShows("colour me")
	before := d.m.View().Content
	d.typeAndSend("/theme dracula")
	d.untilShows("Theme: dracula.")
	after := d.m.View().Content
	if !strings.Contains(after, "\x1b[1;38;2;248;248;242mcolour me") || strings.Contains(before, "248;248;242") {
		t.Errorf("the prompt drawn before the switch kept its colours:\n%q", after)
	}
	d.until("the theme remembered", func(string) bool { return loadPrefs(t, f).Theme == "dracula" })
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = f
	if again := newDriver(t, cfg); again.m.st.Theme != "dracula" {
		t.Errorf("the next start is in %q, want dracula", again.m.st.Theme)
	}

	d.typeAndSend("/theme nosuch")
	untilSays(d, "The theme stays dracula.")
	if d.m.st.Theme != "dracula" {
		t.Errorf("an unknown name changed the theme to %q", d.m.st.Theme)
	}
}

// When the config file names a theme, /theme applies for this run only.
func TestThemeCommandUnderAConfigThemeIsNotRemembered(t *testing.T) {
	themeEnv(t)
	d, f := themeDriver(t, "light", prefs.Prefs{Theme: "dracula"})
	d.typeAndSend("/theme high-contrast")
	untilSays(d, "The config file's theme, light, returns at the next start.")
	if d.m.st.Theme != "high-contrast" {
		t.Errorf("theme %q, want high-contrast", d.m.st.Theme)
	}
	if p := loadPrefs(t, f); p.Theme != "dracula" {
		t.Errorf("prefs hold %q, want dracula untouched", p.Theme)
	}
}

// /theme alone lists the built-in themes and the theme files, the one in
// force marked.
func TestThemeCommandListsThemes(t *testing.T) {
	dir := themeEnv(t)
	write(t, filepath.Join(dir, "mine.toml"), "base = \"light\"\n")
	write(t, filepath.Join(dir, "dracula.toml"), "base = \"light\"\n") // a built-in's name: not listed
	d, _ := themeDriver(t, "solarized-dark", prefs.Prefs{})
	d.typeAndSend("/theme")
	d.untilShows("mine (theme file)")
	s := d.screen()
	for _, want := range []string{"* solarized-dark", "  auto (the terminal's background: not known, dark)", "  high-contrast", dir} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "dracula") != 1 {
		t.Errorf("dracula listed more than once:\n%s", s)
	}
}

// Auto asks the terminal once: its answer applies at once and is
// remembered for this terminal, so the next start asks nothing.
func TestAutoRemembersTheTerminalsBackground(t *testing.T) {
	themeEnv(t)
	d, f := themeDriver(t, "auto", prefs.Prefs{})
	if !d.m.theme.asking {
		t.Fatal("auto with no remembered background does not ask the terminal")
	}
	d.update(tea.BackgroundColorMsg{Color: lightBackground{}})
	if d.m.st.Theme != "light" {
		t.Fatalf("theme %q after a light answer", d.m.st.Theme)
	}
	d.until("the background remembered", func(string) bool { return loadPrefs(t, f).Backgrounds["TestTerm"] == "light" })

	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = f
	again := newDriver(t, cfg)
	if again.m.st.Theme != "light" || again.m.theme.asking {
		t.Errorf("next start: theme %q, asking %v; want light without asking", again.m.st.Theme, again.m.theme.asking)
	}
	if timers := timerCmds(again.m.Init()); len(timers) != 0 {
		t.Errorf("next start sets %v", timers)
	}
	t.Setenv("TERM_PROGRAM", "OtherTerm")
	other := newDriver(t, cfg)
	if !other.m.theme.asking {
		t.Error("another terminal is not asked")
	}
}

// A terminal that does not answer: the timeout passes, the theme stays
// dark, nothing is remembered.
func TestAutoWithoutAnAnswerStaysDark(t *testing.T) {
	themeEnv(t)
	d, f := themeDriver(t, "", prefs.Prefs{})
	d.until("the timeout", func(string) bool { return !d.m.theme.asking })
	if d.m.st.Theme != "dark" {
		t.Errorf("theme %q, want dark", d.m.st.Theme)
	}
	if p := loadPrefs(t, f); len(p.Backgrounds) != 0 {
		t.Errorf("remembered %v without an answer", p.Backgrounds)
	}
}

// lightBackground is a white background colour.
type lightBackground struct{}

func (lightBackground) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// /theme auto asks the terminal again, and a changed answer switches and
// is remembered.
func TestThemeAutoAsksAgain(t *testing.T) {
	themeEnv(t)
	d, f := themeDriver(t, "", prefs.Prefs{Backgrounds: map[string]string{"TestTerm": "dark"}})
	if d.m.theme.asking || d.m.st.Theme != "dark" {
		t.Fatalf("asking %v, theme %q; want the remembered dark without asking", d.m.theme.asking, d.m.st.Theme)
	}
	d.typeAndSend("/theme auto")
	untilSays(d, "Theme: auto (dark, the terminal's background; asked again).")
	if !d.m.theme.asking {
		t.Fatal("/theme auto does not ask the terminal")
	}
	d.update(tea.BackgroundColorMsg{Color: lightBackground{}})
	if d.m.st.Theme != "light" {
		t.Errorf("theme %q after a light answer", d.m.st.Theme)
	}
	d.until("the new background remembered", func(string) bool { return loadPrefs(t, f).Backgrounds["TestTerm"] == "light" })
}

func TestParseThemeColours(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{"[colors]\nuser = \"#ABCDEF\"\nnote = \"#abc\"\nkey = 255\nerror = \"0\"\n", ""},
		{"[colors]\nuser = 256\n", "0 to 255"},
		{"[colors]\nuser = \"#ABCDEG\"\n", `want "#RRGGBB"`},
		{"[colors]\nuser = true\n", "want a string"},
		{"base = \"auto\"\n", `base = "auto"`},
		{"colours = {}\n", "unknown key colours"},
	} {
		_, err := parseTheme("x", tc.text)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.err)
		}
	}
}

// A prefs file that is not JSON is said once, as one note, and the
// interface starts as with nothing remembered (dark, vim keys off).
func TestACorruptPrefsFileIsSaidOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prefs.json")
	if err := os.WriteFile(path, []byte(`{"theme": "dracula", "vim": tru`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, fake.New(), t.TempDir(), nil)
	cfg.Prefs = prefs.Open(path)
	d := newDriver(t, cfg)
	if n := strings.Count(d.screen(), "prefs.json"); n != 1 {
		t.Errorf("the prefs file is named %d times, want once:\n%s", n, d.screen())
	}
	if d.m.vim != nil || d.m.st.Theme != "dark" {
		t.Errorf("vim %v, theme %s", d.m.vim != nil, d.m.st.Theme)
	}
}
