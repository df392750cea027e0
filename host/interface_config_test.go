package host

import (
	"strings"
	"testing"
	"time"
)

func TestInterfaceKeysOfTheConfigFile(t *testing.T) {
	cfg := writeConfig(t, `theme = "dracula"
vim = true
notifications = "osc777"
notify_after = "2m"
status_line = { command = "echo hi", padding = 2 }
`+oneProfile)
	s, err := resolve(&Flags{ConfigPath: cfg, MaxRetries: -1}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	i := s.Interface
	if i.Theme != "dracula" || i.Vim == nil || !*i.Vim || i.Notifications != "osc777" || i.NotifyAfter != 2*time.Minute ||
		i.StatusLine == nil || i.StatusLine.Command != "echo hi" || i.StatusLine.Padding != 2 {
		t.Fatalf("%+v", i)
	}
	s, err = resolve(&Flags{ConfigPath: writeConfig(t, oneProfile), MaxRetries: -1}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if i := s.Interface; i.Theme != "" || i.Vim != nil || i.Notifications != "auto" || i.NotifyAfter != 30*time.Second || i.StatusLine != nil {
		t.Fatalf("defaults: %+v", i)
	}
}

func TestBadInterfaceKeysSayWhatToWrite(t *testing.T) {
	for key, want := range map[string]string{
		`notifications = "loud"`:        "want auto, osc9, osc777, bell or off",
		`notify_after = "soon"`:         `want a duration such as "30s"`,
		`status_line = { padding = 1 }`: "status_line has no command",
	} {
		cfg := writeConfig(t, key+"\n"+oneProfile)
		_, err := resolve(&Flags{ConfigPath: cfg, MaxRetries: -1}, envOf(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", key, err, want)
		}
	}
}

const oneProfile = `
[profiles.local]
base_url = "http://127.0.0.1:9/v1"
model = "m"
`
