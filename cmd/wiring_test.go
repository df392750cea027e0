package cmd

import "testing"

func TestCurrentJournalReportsASessionChange(t *testing.T) {
	var j currentJournal
	steps := []struct {
		id   string
		want bool
	}{{"s1", false}, {"s1", false}, {"s2", true}, {"s2", false}, {"s1", true}}
	for i, s := range steps {
		if got := j.use(s.id, nil); got != s.want {
			t.Errorf("step %d (%s): changed = %v, want %v", i, s.id, got, s.want)
		}
	}
}
