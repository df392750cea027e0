package web

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// blockedPrefixes are the ranges no fetch may reach besides those netip's
// predicates name (loopback, private, link-local, multicast, unspecified):
// addresses of this network, shared address space (RFC 6598, where
// Alibaba's metadata service lives at 100.100.100.200), IETF protocol
// assignments, benchmarking, reserved and broadcast, and the IPv6 ranges
// that embed an IPv4 address (NAT64, 6to4, Teredo).
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("2001::/32"),
}

// Blocked says why ip is no address a fetch may reach ("" when it may):
// loopback, private, link-local (169.254.169.254, the cloud metadata
// address, among them), multicast, unspecified, or one of the reserved
// ranges above. An IPv4 address mapped into IPv6 is judged as IPv4.
func Blocked(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "an invalid address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast():
		if ip == netip.AddrFrom4([4]byte{169, 254, 169, 254}) {
			return "the cloud metadata address"
		}
		return "a link-local address"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return "a reserved address"
		}
	}
	return ""
}

// BlockedError is a connection refused before it was made: the address it
// would have reached is not public.
type BlockedError struct {
	Host string // the host name the URL named
	Addr string // the address it resolved to
	Why  string // what the address is ("a loopback address")
}

func (e *BlockedError) Error() string {
	name := e.Addr
	msg := fmt.Sprintf("%s is %s, which web_fetch never reaches", e.Addr, e.Why)
	if e.Host != "" && e.Host != e.Addr {
		name = e.Host
		msg = fmt.Sprintf("%s resolves to %s, %s, which web_fetch never reaches", e.Host, e.Addr, e.Why)
	}
	// Where the person can let a local server of theirs through.
	return msg + fmt.Sprintf(" unless the person allows it in their config ([web_fetch] private_hosts = [%q])", name)
}

// dialer connects only to public addresses, except to the hosts the
// configuration allows to be private (a local documentation server).
type dialer struct {
	// private holds the allowed hosts, lowercase: "host" or "host:port".
	private map[string]bool
	timeout time.Duration
}

// allowsPrivate reports whether hostport ("docs.local:8080") may resolve to
// a private address: its host, or its host and port, is allowed.
func (d dialer) allowsPrivate(hostport string) bool {
	hostport = strings.ToLower(hostport)
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return d.private[hostport] || d.private[host]
}

// DialContext connects to addr ("host:port"). For a host not allowed to be
// private, the check runs in the dialer's Control function, on the very
// address each connection attempt uses after DNS resolution, so a name
// that resolves to a public address for one look-up and a private one for
// the next (DNS rebinding) is still refused.
func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := &net.Dialer{Timeout: d.timeout}
	if !d.allowsPrivate(addr) {
		host, _, _ := net.SplitHostPort(addr)
		nd.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &BlockedError{Host: host, Addr: address, Why: "an address that cannot be parsed"}
			}
			if why := Blocked(ap.Addr()); why != "" {
				return &BlockedError{Host: host, Addr: ap.Addr().Unmap().String(), Why: why}
			}
			return nil
		}
	}
	return nd.DialContext(ctx, network, addr)
}

// checkHost refuses at once a host written as an address that is not
// public (no DNS needed), unless the host is allowed to be private. A
// name is checked when it is dialled.
func (d dialer) checkHost(hostport string) error {
	if d.allowsPrivate(hostport) {
		return nil
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return &BlockedError{Addr: host, Why: "a loopback name"}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := Blocked(ip); why != "" {
			return &BlockedError{Addr: ip.Unmap().String(), Why: why}
		}
	}
	return nil
}
