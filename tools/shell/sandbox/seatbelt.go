package sandbox

import (
	"fmt"
	"strings"
)

// Seatbelt is a macOS sandbox profile (SBPL) with the parameters it reads
// with (param "NAME"), given to sandbox-exec as -D NAME=VALUE. Paths travel
// as parameters, never inside the profile's text, so no path can change
// the profile's meaning.
type Seatbelt struct {
	Profile string
	Params  []string // NAME=VALUE
}

// SeatbeltFor writes the profile of p, with the same meaning as the Linux
// sandbox: everything may be read and run; writes are denied except in the
// writable roots (none in ReadOnly) and to the device files; Protected
// paths and Dir/.git/hooks and Dir/.git/config are denied even inside
// them (in SBPL the last matching rule wins); network access is denied
// unless p.Network, except unix sockets and the loopback. Paths must be
// canonical (macOS's /tmp is /private/tmp): the caller resolves symlinks.
func SeatbeltFor(p Policy) Seatbelt {
	var b strings.Builder
	var params []string
	param := func(prefix string, i int, path string) string {
		name := fmt.Sprintf("%s_%d", prefix, i)
		params = append(params, name+"="+path)
		return name
	}
	b.WriteString("(version 1)\n(allow default)\n")
	b.WriteString("(deny file-write*)\n")
	b.WriteString("(allow file-write*\n")
	for _, d := range devices {
		fmt.Fprintf(&b, "  (literal %q)\n", d)
	}
	for i, d := range p.writable() {
		fmt.Fprintf(&b, "  (subpath (param %q))\n", param("WRITABLE_ROOT", i, d))
	}
	b.WriteString(")\n")
	if prot := p.protected(); len(prot) > 0 {
		b.WriteString("(deny file-write*\n")
		for i, d := range prot {
			fmt.Fprintf(&b, "  (subpath (param %q))\n", param("PROTECTED", i, d))
		}
		b.WriteString(")\n")
	}
	if hide := p.hidden(); len(hide) > 0 {
		b.WriteString("(deny file-read* file-write*\n")
		for i, d := range hide {
			fmt.Fprintf(&b, "  (subpath (param %q))\n", param("HIDDEN", i, d))
		}
		b.WriteString(")\n")
	}
	if !p.Network {
		b.WriteString("(deny network*)\n")
		b.WriteString("(allow network* (remote unix-socket) (local unix-socket))\n")
	}
	return Seatbelt{Profile: b.String(), Params: params}
}
