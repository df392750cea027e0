package turn

import "testing"

func TestMemoryNote(t *testing.T) {
	for _, c := range []struct {
		in   string
		note string
		ok   bool
	}{
		{"# always use tabs", "always use tabs", true},
		{"#no space", "no space", true},
		{"## a heading", "", false},
		{"#!/bin/sh", "", false},
		{"#   ", "", false},
		{"not # a note", "", false},
		{" # leading space", "", false},
	} {
		note, ok := MemoryNote(c.in)
		if note != c.note || ok != c.ok {
			t.Errorf("MemoryNote(%q) = %q, %v; want %q, %v", c.in, note, ok, c.note, c.ok)
		}
	}
}
