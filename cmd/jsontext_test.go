package cmd

import (
	"encoding/json"
	"testing"
)

func TestReadableJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"command":"go build \u0026\u0026 go test"}`, `{"command":"go build && go test"}`},
		{`{"command":"a \u003c b \u003e c"}`, `{"command":"a < b > c"}`},
		{`{"q":"\u0022quoted\u0022 \\u0026 \\\u0026"}`, `{"q":"\u0022quoted\u0022 \\u0026 \\&"}`},
		{`{"nl":"\u000a","emoji":"\ud83d\ude00","e":"caf\u00e9"}`, `{"nl":"\u000a","emoji":"\ud83d\ude00","e":"café"}`},
		{`not json \u0026`, `not json \u0026`},
		{`{"plain":"no escapes"}`, `{"plain":"no escapes"}`},
	} {
		got := readableJSON(tc.in)
		if got != tc.want {
			t.Errorf("readableJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tc.in), &a) == nil {
			if err := json.Unmarshal([]byte(got), &b); err != nil || !jsonEqual(a, b) {
				t.Errorf("readableJSON(%s) changed the meaning: %s", tc.in, got)
			}
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
