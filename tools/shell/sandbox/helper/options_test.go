package helper

import (
	"reflect"
	"testing"
	"time"
)

// The agent writes the options with Args and the helper reads them back
// with Parse: every field survives the trip, the ids to map included.
func TestOptionsRoundTrip(t *testing.T) {
	o := Options{RulesetFD: 3, CgroupFD: 4, CgroupThread: true, TmpFD: 5, TmpAt: "/tmp/x", Grace: 500 * time.Millisecond,
		Writable: []string{"/w"}, ReadOnlyRest: true, Pinned: []string{"/w/.git"}, ReadOnly: []string{"/w/.git/hooks"},
		Hidden: []string{"/h"}, PrivateMounts: true, Loopback: true, NoUnixSockets: true, MaxProcs: 7,
		MapIDs: true, UID: 1000, GID: 100, ProbeFD: -1, Program: []string{"/bin/bash", "-c", "true"}}
	// A session's first command, which probes as it starts and makes the
	// session's tmpfs.
	first := o
	first.TmpFD, first.ProbeFD, first.MakeTmp = -1, 6, 1<<20
	for _, o := range []Options{o, first} {
		got, err := Parse(o.Args())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("Parse(Args()) = %+v\nwant %+v", got, o)
		}
	}
	for _, bad := range []string{"--map-ids=1000", "--map-ids=a:1", "--map-ids=-1:0"} {
		if _, err := Parse([]string{bad, "--", "/bin/true"}); err == nil {
			t.Errorf("Parse accepted %s", bad)
		}
	}
}
