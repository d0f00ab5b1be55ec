package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// DialContext connects from inside the host's network namespace: it
// reaches the host's own agents while its link is down. The socket is made
// on an OS thread moved into the namespace; that thread is never unlocked,
// so it ends with the dialing goroutine and no other goroutine runs in the
// namespace.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if h.Shared() {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	type result struct {
		conn net.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		ns, err := os.Open(h.netns())
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("host %s: entering its network namespace: %w", h.Name, err)}
			return
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		ch <- result{conn, err}
	}()
	r := <-ch
	return r.conn, r.err
}

// LocalAPI returns a client for the agent at addr (host:port) on this host
// that connects from inside the host (see DialContext).
func (h *Host) LocalAPI(addr string) *Client {
	c := NewClient(addr)
	c.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: h.DialContext, DisableKeepAlives: true,
	}}
	return c
}
