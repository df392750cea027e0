package cmd

import "testing"

func TestPermissionModes(t *testing.T) {
	tests := []struct {
		mode      string
		allowBash bool
		tool      string
		want      verdict
	}{
		{modeAsk, false, "edit_file", askPerson},
		{modeAsk, false, "bash", askPerson},
		{modeAsk, true, "bash", allow},
		{modeAsk, true, "write_file", askPerson},
		{modeAuto, false, "write_file", allow},
		{modeAuto, false, "bash", askPerson},
		{modeAuto, true, "bash", allow},
		{modeYolo, false, "bash", allow},
		{modeYolo, false, "edit_file", allow},
	}
	for _, tt := range tests {
		if got := judge(tt.mode, tt.allowBash, tt.tool); got != tt.want {
			t.Errorf("judge(%s, allowBash=%v, %s) = %v, want %v", tt.mode, tt.allowBash, tt.tool, got, tt.want)
		}
	}
}

func TestPermissionModeDefaults(t *testing.T) {
	for _, tt := range []struct {
		opts        Options
		interactive bool
		want        string
	}{
		{Options{}, true, modeAsk},
		{Options{}, false, modeAuto},
		{Options{Yolo: true}, true, modeYolo},
		{Options{PermissionMode: "auto"}, true, modeAuto},
		{Options{PermissionMode: "ask"}, false, modeAsk},
	} {
		if got, err := permissionMode(&tt.opts, tt.interactive); err != nil || got != tt.want {
			t.Errorf("%+v interactive=%v: %q, %v; want %q", tt.opts, tt.interactive, got, err, tt.want)
		}
	}
	if _, err := permissionMode(&Options{PermissionMode: "sometimes"}, false); exitCode(err) != ExitUsage {
		t.Errorf("an unknown mode should be a usage error, got %v", err)
	}
}
