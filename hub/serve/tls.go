package serve

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/review"
)

// The HTTP door's TLS (serve --tls-cert, --tls-key), and the warning a
// plain-HTTP door on an address reached from elsewhere gets: its tokens
// (every reviewer's and publisher's) and every payload cross the network
// in the clear.

// doorTLS loads the door's certificate and key; nil, nil without them.
func doorTLS(cert, key string) (*tls.Config, error) {
	switch {
	case cert == "" && key == "":
		return nil, nil
	case cert == "" || key == "":
		return nil, review.Usagef("serve: give both --tls-cert and --tls-key (the door's certificate and its private key, PEM)")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, review.Usagef("serve: cannot load the door's certificate %s and key %s: %v", inert.Line(cert), inert.Line(key), err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// plainDoorWarning is the warning of a door served in plain HTTP on addr
// (host:port) when the host is not loopback; "" otherwise.
func plainDoorWarning(addr string, tlsOn bool) string {
	if tlsOn || addr == "" {
		return ""
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() || host == "localhost" {
		return ""
	}
	return fmt.Sprintf("the HTTP door on %s is plain HTTP on an address reached from elsewhere: tokens and payloads cross the network in the clear; give --tls-cert and --tls-key, or keep it on loopback behind a TLS proxy", inert.Line(addr))
}

// loopback puts an address without a host on loopback: the hub is reached
// from elsewhere only when told so.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if !strings.Contains(addr, ":") {
			return net.JoinHostPort("127.0.0.1", addr) // a bare port
		}
		return addr // net.Listen says what is wrong
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// loopbackIf is loopback(addr), "" for "".
func loopbackIf(addr string) string {
	if addr == "" {
		return ""
	}
	return loopback(addr)
}
