package host

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/web"
)

// trustWeb is the trust store's kind of a domain the person allowed
// "always" (web_fetch's question).
const trustWeb = "web_fetch"

// domainRules are the [permissions] rules that name web_fetch's domains
// (web.ParseRule), with the domains the person allowed for good.
type domainRules struct {
	allow, deny []string
	// always reports whether the person answered "always" for host; nil
	// knows none.
	always func(host string) bool
}

// splitDomainRules takes the web_fetch rules out of a [permissions] list;
// a malformed one is an error naming it.
func splitDomainRules(all []string) (rest, domains []string, err error) {
	for _, r := range all {
		pat, ok, perr := web.ParseRule(r)
		switch {
		case perr != nil:
			return nil, nil, perr
		case ok:
			domains = append(domains, pat)
		default:
			rest = append(rest, r)
		}
	}
	return rest, domains, nil
}

// matchDomain returns the first pattern of pats that host matches.
func matchDomain(pats []string, host string) (string, bool) {
	for _, p := range pats {
		if web.MatchDomain(p, host) {
			return p, true
		}
	}
	return "", false
}

// domainRule writes a domain pattern as the rule that names it.
func domainRule(pat string) string {
	if pat == "*" {
		return web.ToolName
	}
	return web.ToolName + "(domain:" + pat + ")"
}

// judgeHosts rules on a call that reaches hosts over the network (its
// summary names them; ok is false for any other call): a deny rule that
// matches one host denies, in every mode; yolo allows; allow rules or the
// person's "always" that cover every host allow (plan mode included: a
// fetch changes nothing here); a gate's allow allows; the rest is asked
// (denied headless), in auto mode too, since what a call sends out
// (its URL) may carry the workspace's secrets.
func (p policy) judgeHosts(def tools.Definition, arguments string, gate loop.GateVerdict, gateWhy string) (ruling, bool) {
	if !def.Effects.Has(tools.ReachesNetwork) {
		return ruling{}, false
	}
	hosts := def.Summary(arguments).Hosts
	if len(hosts) == 0 {
		return ruling{}, false
	}
	for _, h := range hosts {
		if pat, ok := matchDomain(p.domains.deny, h); ok {
			return ruling{verdict: deny, why: fmt.Sprintf("denied by rule %q", domainRule(pat)),
				reason: fmt.Sprintf("%s of %s was not run: the rule %q in the user's config denies that domain. Do not try to get around the rule; find another source or ask the user.", def.Name, h, domainRule(pat))}, true
		}
	}
	if p.mode == ModeYolo {
		return ruling{verdict: allow, why: "yolo"}, true
	}
	var whys []string
	for _, h := range hosts {
		if pat, ok := matchDomain(p.domains.allow, h); ok {
			whys = append(whys, fmt.Sprintf("rule: allow %q", domainRule(pat)))
		} else if p.domains.always != nil && p.domains.always(h) {
			whys = append(whys, "person: always for "+h)
		} else {
			break
		}
	}
	switch {
	case len(whys) == len(hosts):
		return ruling{verdict: allow, why: strings.Join(whys, "; ")}, true
	case gate == loop.GateAllow:
		return ruling{verdict: allow, why: cmp.Or(gateWhy, "allowed before it ran")}, true
	case gate == loop.GateAsk:
		return ruling{verdict: askPerson, reason: gateWhy}, true
	}
	return ruling{verdict: askPerson, reason: "a domain no rule allows: " + strings.Join(hosts, ", ")}, true
}

// alwaysDomains reports the domains store holds as allowed always; nil
// for no store.
func alwaysDomains(store *trustStore) func(string) bool {
	if store == nil {
		return nil
	}
	return func(host string) bool { return store.get(trustWeb, "", host, "") == trustAllowed }
}

// newWebFetch is the web_fetch tool of a run: public addresses only, but
// for the [web_fetch] private_hosts.
func newWebFetch(s Settings) tools.Tool {
	return web.New(s.Web)
}
