package cmd

import (
	"strings"
	"testing"
)

// --json-schema and --export-session hold for a headless run and the
// Claude Agent SDK's protocol; the interface refuses them rather than
// ignore them, before it opens anything.
func TestTheInterfaceRefusesTheHeadlessOnlyFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		flag string
	}{
		{"json-schema", Options{JSONSchema: `{"type":"object"}`}, "--json-schema"},
		{"export-session", Options{ExportSession: "/tmp/x.json"}, "--export-session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Dir = "/nonexistent" // reached only if the flag were accepted
			env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "XDG_DATA_HOME": t.TempDir()}
			err := runInteractive(t.Context(), &o, func(k string) string { return env[k] })
			if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.flag) || !strings.Contains(err.Error(), "-p") {
				t.Errorf("err %v (exit %d), want a usage error naming %s and -p", err, exitCode(err), tc.flag)
			}
		})
	}
}

// A session without background processes gives the interface no Shells at
// all, not an interface holding a nil *background.Manager (whose methods
// would panic on the first change the interface waits for).
func TestASessionWithoutBackgroundProcessesGivesTheInterfaceNoShells(t *testing.T) {
	if s := tuiShells(nil); s != nil {
		t.Errorf("tuiShells(nil) = %#v, want nil", s)
	}
}
