package host

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agent-dev/agent/tools/mcp"
)

// resolveMCP joins the user's [mcp.servers] and the project's .mcp.json
// (the user's own config wins a name both define) and resolves them for
// dir. It returns the servers and, for those of the project, what the
// person trusts (see describeProject). A project server whose env or
// headers name a provider key (keyEnvs) is skipped: the key is never
// expanded for a repository's server.
func resolveMCP(user map[string]mcp.ServerDef, dir string, keyEnvs []string, getenv func(string) string) ([]mcp.Config, map[string]projectServer, error) {
	fromProject, err := projectServers(dir)
	if err != nil {
		return nil, nil, usagef("%w", err)
	}
	servers, project := maps.Clone(user), map[string]projectServer{}
	if servers == nil {
		servers = map[string]mcp.ServerDef{}
	}
	keyRefs := map[string][]string{}
	for name, c := range fromProject {
		if _, ok := servers[name]; ok {
			continue
		}
		project[name] = describeProject(dir, c)
		if refs := projectKeyRefs(c, keyEnvs); len(refs) > 0 {
			keyRefs[name] = refs
			c.Env, c.Headers = withoutRefs(c.Env, refs), withoutRefs(c.Headers, refs)
		}
		servers[name] = c
	}
	cfgs, err := mcpServers(servers, "MCP servers", dir, keyEnvs, getenv)
	if err != nil {
		return nil, nil, err
	}
	for i := range cfgs {
		if refs := keyRefs[cfgs[i].Name]; len(refs) > 0 {
			cfgs[i].Skipped = fmt.Sprintf("the project's .mcp.json gives it the provider key $%s, which a repository's server never gets", strings.Join(refs, ", $"))
		}
	}
	return cfgs, project, nil
}

// withoutRefs returns m with every ${VAR} of refs replaced by nothing.
func withoutRefs(m map[string]string, refs []string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = mcp.VarRef.ReplaceAllStringFunc(v, func(ref string) string {
			if slices.Contains(refs, mcp.VarRef.FindStringSubmatch(ref)[1]) {
				return ""
			}
			return ref
		})
	}
	return out
}

// mcpServers resolves servers for dir (see mcp.Resolve); a server that
// cannot work is a UsageError naming where it is defined.
func mcpServers(servers map[string]mcp.ServerDef, where, dir string, keyEnvs []string, getenv func(string) string) ([]mcp.Config, error) {
	cfgs, err := mcp.Resolve(servers, where, dir, keyEnvs, getenv)
	if err != nil {
		return nil, UsageError{Err: err}
	}
	return cfgs, nil
}
