package dlvbridge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Connections to a Unix socket, from the kernel's socket diagnostics
// (sock_diag netlink). /proc/net/unix lists Delve's end of each accepted
// connection, but not whether the client at the other end has gone: the
// diagnostics do, as the shutdown state the kernel gives Delve's end when
// its peer is closed.

const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	udiagShowName    = 0x01
	unixDiagName     = 0
	unixDiagShutdown = 6
	tcpEstablished   = 1 // the state of a connected Unix stream socket
)

// unixSocket is one connected Unix socket: its inode, the path it is bound
// to (accepted sockets carry their listener's) and whether its peer has
// shut the connection down.
type unixSocket struct {
	inode    uint32
	path     string
	peerGone bool
}

// connectedUnixSockets lists the connected Unix stream sockets of the
// machine's network namespace.
func connectedUnixSockets() ([]unixSocket, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return nil, fmt.Errorf("socket diagnostics: %w", err)
	}
	defer syscall.Close(fd)
	// A receive never waits long: the dump is answered at once.
	tv := syscall.Timeval{Sec: 1}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)

	// nlmsghdr (16 bytes) then unix_diag_req (24 bytes).
	req := make([]byte, 16+24)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1)
	req[16] = syscall.AF_UNIX
	ne.PutUint32(req[20:], 1<<tcpEstablished) // udiag_states
	ne.PutUint32(req[28:], udiagShowName)     // udiag_show
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("socket diagnostics: %w", err)
	}
	var out []unixSocket
	buf := make([]byte, 1<<16)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("socket diagnostics: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("socket diagnostics: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return out, nil
			case syscall.NLMSG_ERROR:
				return nil, errors.New("socket diagnostics: the kernel refused the request")
			}
			if s, ok := parseUnixDiag(m.Data); ok {
				out = append(out, s)
			}
		}
	}
}

// parseUnixDiag decodes one unix_diag_msg and its attributes.
func parseUnixDiag(data []byte) (unixSocket, bool) {
	const head = 16 // family, type, state, pad, inode, cookie[2]
	if len(data) < head {
		return unixSocket{}, false
	}
	ne := binary.NativeEndian
	s := unixSocket{inode: ne.Uint32(data[4:])}
	for a := data[head:]; len(a) >= 4; {
		l, typ := int(ne.Uint16(a[0:])), ne.Uint16(a[2:])
		if l < 4 || l > len(a) {
			break
		}
		v := a[4:l]
		switch typ {
		case unixDiagName:
			s.path = strings.TrimRight(string(v), "\x00")
		case unixDiagShutdown:
			s.peerGone = len(v) > 0 && v[0] != 0
		}
		a = a[min(len(a), (l+3)&^3):]
	}
	return s, true
}
