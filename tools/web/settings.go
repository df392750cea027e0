package web

import (
	"fmt"
	"strings"
)

// File is the config file's [web_fetch] table.
//
//	[web_fetch]
//	private_hosts = ["localhost:6060"]  # may be loopback or private (a local docs server); plain http stays http
type File struct {
	// PrivateHosts are hosts ("docs.internal", "localhost:6060") that
	// web_fetch may reach although they resolve to loopback or private
	// addresses.
	PrivateHosts []string `toml:"private_hosts"`
}

// ResolveConfig is the tool's Config of f: every private host a host or
// host:port (a URL or a path would never match a request, so it is an
// error rather than a silent no); where names the config file in messages
// ("config PATH").
func ResolveConfig(f File, where string) (Config, error) {
	for _, h := range f.PrivateHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			return Config{}, fmt.Errorf("%s: web_fetch: private_hosts entry %q: want a host or host:port, such as \"localhost:6060\"", where, h)
		}
	}
	return Config{PrivateHosts: f.PrivateHosts}, nil
}
