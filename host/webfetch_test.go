package host

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/providers"
	"github.com/agent-dev/agent/tools/web"
)

func TestDomainPolicy(t *testing.T) {
	def := web.New(web.Config{}).Definition()
	url := func(u string) string { return `{"url":"` + u + `"}` }
	rulesOf := func(allow, deny []string) domainRules {
		_, a, err := splitDomainRules(allow)
		if err != nil {
			t.Fatal(err)
		}
		_, d, err := splitDomainRules(deny)
		if err != nil {
			t.Fatal(err)
		}
		return domainRules{allow: a, deny: d, always: func(h string) bool { return h == "pkg.go.dev" }}
	}
	docs := rulesOf([]string{"web_fetch(domain:*.python.org)", "git status"}, []string{"web_fetch(domain:evil.example)"})
	tests := []struct {
		name string
		p    policy
		arg  string
		want verdict
		why  string
	}{
		{"a new domain is asked in ask mode", policy{mode: ModeAsk, domains: docs}, url("https://docs.rs/x"), askPerson, ""},
		{"and in auto mode", policy{mode: ModeAuto, domains: docs}, url("https://docs.rs/x"), askPerson, ""},
		{"an allow rule allows", policy{mode: ModeAsk, domains: docs}, url("https://docs.python.org/3/"), allow, `web_fetch(domain:*.python.org)`},
		{"in plan mode too", policy{mode: ModePlan, domains: docs}, url("https://docs.python.org/3/"), allow, "rule"},
		{"an always answer allows", policy{mode: ModeAsk, domains: docs}, url("http://pkg.go.dev/net/http"), allow, "always for pkg.go.dev"},
		{"a deny rule denies", policy{mode: ModeAsk, domains: docs}, url("https://evil.example/a"), deny, "evil.example"},
		{"in yolo too", policy{mode: ModeYolo, domains: docs}, url("https://EVIL.example/a"), deny, "evil.example"},
		{"yolo allows the rest", policy{mode: ModeYolo, domains: docs}, url("https://docs.rs/"), allow, "yolo"},
		{"bare web_fetch allows every domain", policy{mode: ModeAsk, domains: rulesOf([]string{"web_fetch"}, nil)}, url("https://a.b/"), allow, `"web_fetch"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.p.decide(def, tt.arg)
			if r.verdict != tt.want || !strings.Contains(r.why+r.reason, tt.why) {
				t.Errorf("got %v %q %q, want %v with %q", r.verdict, r.why, r.reason, tt.want, tt.why)
			}
		})
	}
	if _, _, err := splitDomainRules([]string{"web_fetch(docs.rs)"}); err == nil {
		t.Error("a malformed web_fetch rule was accepted")
	}
}

func TestHeadlessDeniesANewDomainSayingHowToAllowIt(t *testing.T) {
	def := web.New(web.Config{}).Definition()
	approve := headlessApproval(policy{mode: ModeAuto})
	d := approve(context.Background(), loop.Approval{Call: providers.ToolCall{ID: "c", Name: def.Name, Arguments: `{"url":"https://docs.rs/serde"}`}, Def: def})
	if d.Allow || !strings.Contains(d.Reason, `web_fetch(domain:docs.rs)`) {
		t.Errorf("decision %+v", d)
	}
}

func TestAlwaysDomainsAreRemembered(t *testing.T) {
	store := &trustStore{path: filepath.Join(t.TempDir(), "trust.json")}
	always := alwaysDomains(store)
	if always("docs.rs") {
		t.Fatal("an empty store allows a domain")
	}
	if err := store.set(trustWeb, "", "docs.rs", "", true); err != nil {
		t.Fatal(err)
	}
	if !always("docs.rs") || always("crates.io") {
		t.Error("the store does not hold exactly docs.rs")
	}
}
