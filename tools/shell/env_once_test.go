package shell

import (
	"slices"
	"testing"
)

// The decisions Environ remembers are per filter and per value: a variable
// whose value changed is decided again, and a filter that keeps a name
// does not inherit another's refusal of it.
func TestEnvironRemembersPerFilterAndValue(t *testing.T) {
	plain := []string{"AGENT_ENV_ONCE=plain value", "HOME=/h"}
	secret := []string{"AGENT_ENV_ONCE=ghp_0123456789abcdefghijABCDEFGHIJ012345", "HOME=/h"}
	f := EnvFilter{}
	if got := f.Environ(plain); !slices.Equal(got, plain) {
		t.Errorf("a plain value was removed: %v", got)
	}
	if got := f.Environ(secret); !slices.Equal(got, []string{"HOME=/h"}) {
		t.Errorf("a changed value that is a token was kept: %v", got)
	}
	keep := EnvFilter{Keep: []string{"AGENT_ENV_ONCE"}}
	if got := keep.Environ(secret); !slices.Equal(got, secret) {
		t.Errorf("env_passthrough lost to another filter's decision: %v", got)
	}
	if got := f.Environ(secret); !slices.Equal(got, []string{"HOME=/h"}) {
		t.Errorf("the first filter took the second's decision: %v", got)
	}
}
