package tui

import "testing"

func TestImagePathOf(t *testing.T) {
	for in, want := range map[string]string{
		"'/tmp/Screen Shot.png'":    "/tmp/Screen Shot.png",
		`/tmp/Screen\ Shot.PNG`:     "/tmp/Screen Shot.PNG",
		"file:///tmp/a%20b.jpg":     "/tmp/a b.jpg",
		"  shots/x.webp \n":         "/work/shots/x.webp",
		"main.go":                   "",
		"look at /tmp/a.png please": "",
		"/tmp/a.png\n/tmp/b.png":    "",
	} {
		got, ok := imagePathOf(in, "/work")
		if ok != (want != "") || got != want {
			t.Errorf("imagePathOf(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
