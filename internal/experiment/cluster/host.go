package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The multi-host network: a bridge in the sandbox's network namespace and
// one network namespace per host, joined to the bridge by a veth pair. The
// addresses are from TEST-NET-2 (RFC 5737), which no real network routes.
const (
	bridgeName = "nfbr0"
	// BridgeAddr is the sandbox's own address on the bridge: the bench
	// reaches the agents' HTTP APIs from it.
	BridgeAddr = "198.51.100.254"
	subnet     = "198.51.100.0/24"
	prefixLen  = "/24"
	// hostIface is the host's end of its veth pair, inside its namespace.
	hostIface = "eth0"
	// probeAddr is the cloud metadata address: no host may route to it.
	probeAddr = "169.254.169.254"
)

// Host is a machine of the cluster: a network namespace of its own (multi
// topology) or the sandbox's own namespace (single topology, Shared).
type Host struct {
	Name string
	// Addr is the host's IP address its agents bind to.
	Addr string
	// Link is the sandbox-side end of the host's veth pair; its counters
	// are the host's traffic ("" for a shared host).
	Link string
	// holder keeps the namespace alive: a process that only sleeps.
	holder *exec.Cmd
	done   chan struct{}
}

// Shared reports whether the host is the sandbox's own namespace.
func (h *Host) Shared() bool { return h.holder == nil }

// netns is the path of the host's network namespace.
func (h *Host) netns() string {
	return fmt.Sprintf("/proc/%d/ns/net", h.holder.Process.Pid)
}

// Command returns a command that runs argv in the host's network namespace.
func (h *Host) Command(argv ...string) *exec.Cmd {
	if h.Shared() {
		return exec.Command(argv[0], argv[1:]...)
	}
	args := append([]string{"--net=" + h.netns(), "--"}, argv...)
	return exec.Command("nsenter", args...)
}

func (h *Host) ip(ctx context.Context, args ...string) (string, error) {
	cmd := h.Command(append([]string{"ip"}, args...)...)
	return runCmd(ctx, cmd)
}

func runCmd(ctx context.Context, cmd *exec.Cmd) (string, error) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			if cmd.Process != nil {
				_ = cmd.Process.Kill()
			}
		case <-done:
		}
	}()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func sandboxIP(ctx context.Context, args ...string) error {
	_, err := runCmd(ctx, exec.Command("ip", args...))
	return err
}

// newBridge creates the bridge the hosts' links join, with the sandbox's
// address on it, and turns off forwarding in the sandbox's namespace.
func newBridge(ctx context.Context) error {
	for _, args := range [][]string{
		{"link", "add", bridgeName, "type", "bridge"},
		{"addr", "add", BridgeAddr + prefixLen, "dev", bridgeName},
		{"link", "set", bridgeName, "up"},
	} {
		if err := sandboxIP(ctx, args...); err != nil {
			return err
		}
	}
	// The sandbox has no link out anyway; no forwarding makes sure the
	// bridge never carries a host's packet anywhere but to another host.
	if err := os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("0\n"), 0o644); err != nil {
		return fmt.Errorf("turning off forwarding: %w", err)
	}
	return nil
}

// newHost creates the host's network namespace, its veth pair to the
// bridge, and configures its address. It has no route but its subnet's.
func newHost(ctx context.Context, name string, index int) (*Host, error) {
	h := &Host{
		Name: name,
		Addr: fmt.Sprintf("198.51.100.%d", index),
		Link: fmt.Sprintf("nfv%d", index),
		done: make(chan struct{}),
	}
	h.holder = exec.Command("unshare", "--net", "--", "sleep", "infinity")
	h.holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := h.holder.Start(); err != nil {
		return nil, fmt.Errorf("host %s: starting its namespace: %w", name, err)
	}
	go func() {
		_ = h.holder.Wait()
		close(h.done)
	}()
	// unshare execs sleep once the namespace exists: wait for the exec.
	if err := waitNetns(ctx, h); err != nil {
		h.close()
		return nil, err
	}
	peer := fmt.Sprintf("nfp%d", index)
	steps := []func() error{
		func() error { return sandboxIP(ctx, "link", "add", h.Link, "type", "veth", "peer", "name", peer) },
		func() error {
			return sandboxIP(ctx, "link", "set", peer, "netns", strconv.Itoa(h.holder.Process.Pid))
		},
		func() error { return sandboxIP(ctx, "link", "set", h.Link, "master", bridgeName) },
		func() error { return sandboxIP(ctx, "link", "set", h.Link, "up") },
		func() error { _, err := h.ip(ctx, "link", "set", "lo", "up"); return err },
		func() error { _, err := h.ip(ctx, "link", "set", peer, "name", hostIface); return err },
		func() error { _, err := h.ip(ctx, "addr", "add", h.Addr+prefixLen, "dev", hostIface); return err },
		func() error { _, err := h.ip(ctx, "link", "set", hostIface, "up"); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			h.close()
			return nil, fmt.Errorf("host %s: %w", name, err)
		}
	}
	return h, nil
}

// waitNetns waits until the holder runs sleep, in a namespace that is not
// the sandbox's.
func waitNetns(ctx context.Context, h *Host) error {
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(h.holder.Process.Pid), "comm"))
		ns, err := os.Readlink(h.netns())
		if err == nil && ns != own && strings.TrimSpace(string(comm)) == "sleep" {
			return nil
		}
		select {
		case <-h.done:
			return fmt.Errorf("host %s: its namespace holder exited", h.Name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("host %s: no namespace after 10s", h.Name)
		}
	}
}

// CheckIsolated fails unless the host's namespace has no route but its own
// subnet's: no default route, nothing to the link-local range (cloud
// metadata), nothing to the sandbox's other addresses.
func (h *Host) CheckIsolated(ctx context.Context) error {
	if h.Shared() {
		return nil
	}
	out, err := h.ip(ctx, "-4", "route", "show", "table", "all")
	if err != nil {
		return err
	}
	if err := checkRoutes(out); err != nil {
		return fmt.Errorf("host %s: %w", h.Name, err)
	}
	for _, dst := range []string{probeAddr, "192.0.2.254", "1.1.1.1"} {
		if out, err := h.ip(ctx, "route", "get", dst); err == nil {
			return fmt.Errorf("host %s can route to %s: %s", h.Name, dst, strings.TrimSpace(out))
		}
	}
	return nil
}

// checkRoutes fails unless every route of `ip -4 route show table all` is
// the subnet's or one of the kernel's local and broadcast routes for the
// host's own addresses.
func checkRoutes(table string) error {
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "local" || f[0] == "broadcast" || f[0] == subnet {
			continue
		}
		return fmt.Errorf("a route out of its subnet: %s", line)
	}
	return nil
}

// SetLink takes the host's link to the bridge down or up: down, the host is
// cut off from every other host (a partition), its processes keep running.
func (h *Host) SetLink(ctx context.Context, up bool) error {
	if h.Shared() {
		return errors.New("the single topology has no links: use -topology multi")
	}
	state := "down"
	if up {
		state = "up"
	}
	return sandboxIP(ctx, "link", "set", h.Link, state)
}

// reachCommands are the commands, run in a host's namespace, that make
// addr unreachable from it — an unreachable route, so connecting fails at
// once with "no route to host", then its TCP sockets to addr aborted (ss
// -K), so no connection made before hangs — or reachable again.
func reachCommands(addr string, reachable bool) [][]string {
	route := addr + "/32"
	if reachable {
		return [][]string{{"ip", "route", "del", "unreachable", route}}
	}
	return [][]string{
		{"ip", "route", "add", "unreachable", route},
		{"ss", "-K", "-t", "dst", addr},
	}
}

// SetReachable makes addr unreachable from the host, or reachable again:
// a cut of one direction that, unlike SetLink, leaves the host's other
// peers reachable. The host's processes get an error at once, as when a
// firewall rejects the traffic.
func (h *Host) SetReachable(ctx context.Context, addr string, reachable bool) error {
	if h.Shared() {
		return errors.New("the single topology has no hosts to separate: use -topology multi")
	}
	for _, argv := range reachCommands(addr, reachable) {
		if _, err := runCmd(ctx, h.Command(argv...)); err != nil {
			return fmt.Errorf("host %s: %w", h.Name, err)
		}
	}
	return nil
}

// LinkCounters are a host's link byte counters, as the host sees them:
// Sent is what the host sent to the bridge, Received what it got.
type LinkCounters struct {
	Sent     uint64 `json:"sent"`
	Received uint64 `json:"received"`
}

// Sub returns c − o.
func (c LinkCounters) Sub(o LinkCounters) LinkCounters {
	return LinkCounters{Sent: c.Sent - o.Sent, Received: c.Received - o.Received}
}

// Counters reads the host's link byte counters from the sandbox's end of
// its veth pair (whose receive is the host's send).
func (h *Host) Counters() (LinkCounters, error) {
	if h.Shared() {
		return LinkCounters{}, errors.New("a shared host has no link of its own")
	}
	read := func(name string) (uint64, error) {
		data, err := os.ReadFile(filepath.Join("/sys/class/net", h.Link, "statistics", name))
		if err != nil {
			return 0, err
		}
		return strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	}
	rx, err := read("rx_bytes")
	if err != nil {
		return LinkCounters{}, err
	}
	tx, err := read("tx_bytes")
	if err != nil {
		return LinkCounters{}, err
	}
	return LinkCounters{Sent: rx, Received: tx}, nil
}

// close ends the host's namespace holder; the namespace goes with its last
// process.
func (h *Host) close() {
	if h.holder == nil || h.holder.Process == nil {
		return
	}
	_ = h.holder.Process.Kill()
	<-h.done
}
