// Package sandbox runs commands inside private network, mount and PID
// namespaces so that Nomad code can never reach the machine's network, its
// cgroups or outlive the run.
//
// The network namespace holds only a loopback device and a veth pair. Nomad's
// network fingerprinter needs a default route, so one is added via a gateway
// address on the veth pair; nothing answers there. The link-local range used
// by cloud metadata services and the private ranges are made unreachable.
package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// InitArg is the hidden first argument with which the tool re-executes itself
// as the first process of a new sandbox.
const InitArg = "__sandbox-init"

const (
	hostIface    = "veth0"
	peerIface    = "veth1"
	hostAddr     = "192.0.2.1/24"
	gatewayAddr  = "192.0.2.254"
	metadataAddr = "169.254.169.254"
)

// unreachableRoutes are the destinations no process in the sandbox may route
// to, even in principle: link-local (cloud metadata) and the private ranges.
var unreachableRoutes = []string{
	"169.254.0.0/16",
	"10.0.0.0/8",
	"172.16.0.0/12",
	"192.168.0.0/16",
}

// AllowedInterfaces are the only network interfaces a sandbox may have.
var AllowedInterfaces = []string{"lo", hostIface, peerIface}

// Command returns a command that runs argv inside a new sandbox. The tool's
// main function must call Init when its first argument is InitArg.
func Command(argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command given")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("sandbox: creating network namespaces needs root; run as root (CI machines run as root)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w (install util-linux)", err)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("sandbox: %w (install iproute2)", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: locating own executable: %w", err)
	}
	args := []string{
		"--net", "--mount", "--pid", "--fork", "--mount-proc",
		"--propagation", "private", "--kill-child",
		"--", self, InitArg, "--",
	}
	args = append(args, argv...)
	cmd := exec.Command(unshare, args...)
	cmd.Stdin = os.Stdin
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	// Whenever the tool dies (a second signal, kill -9), unshare dies
	// too, and with it (--kill-child) the sandbox's init, the namespace's
	// pid 1, whose end kills every process inside: nothing outlives the
	// tool.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// Run runs argv inside a new sandbox with the given environment (nil: the
// current one) and working directory, wired to the current standard
// streams. SIGINT, SIGTERM and SIGHUP the tool receives meanwhile go to
// the sandbox's init, which passes them on to argv (unshare itself
// ignores them); when Run returns, or the tool dies, no process of the
// sandbox runs.
func Run(dir string, env []string, argv ...string) error {
	cmd, err := Command(argv)
	if err != nil {
		return err
	}
	cmd.Dir = dir
	cmd.Env = env
	// Pdeathsig follows the thread that started unshare: keep it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return err
		case sig := <-signals:
			if pid := initOf(cmd.Process.Pid); pid > 0 {
				_ = syscall.Kill(pid, sig.(syscall.Signal))
			} else {
				// The sandbox's init is not running (yet, or any
				// more): nothing inside to stop gracefully.
				_ = cmd.Process.Kill()
			}
		}
	}
}

// initOf returns the host pid of the sandbox's init, the one child of
// unshare (pid), or 0 when it has none.
func initOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err == nil {
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				return n
			}
		}
		return 0
	}
	// Kernels without CONFIG_PROC_CHILDREN: the process whose parent is
	// unshare.
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return n
		}
	}
	return 0
}

// Init runs as the first process of the sandbox: it sets up the network,
// verifies it, hides the machine's cgroups, then runs argv and reaps every
// process until argv exits. It returns argv's exit code.
func Init(argv []string) int {
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "sandbox: no command given")
		return 2
	}
	if err := setupNetwork(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		return 2
	}
	if err := Verify(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: refusing to run: %v\n", err)
		return 2
	}
	if err := mountPrivateSys(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		return 2
	}
	return runAndReap(argv)
}

func setupNetwork() error {
	steps := [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", hostIface, "type", "veth", "peer", "name", peerIface},
		{"addr", "add", hostAddr, "dev", hostIface},
		{"link", "set", hostIface, "up"},
		{"link", "set", peerIface, "up"},
		{"route", "add", "default", "via", gatewayAddr, "dev", hostIface},
	}
	for _, dst := range unreachableRoutes {
		steps = append(steps, []string{"route", "add", "unreachable", dst})
	}
	for _, args := range steps {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// Verify checks that the current network namespace is a sandbox: it has no
// interface but the allowed ones and the metadata address is unreachable.
func Verify() error {
	ifaces, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("listing interfaces: %w", err)
	}
	var extra []string
	for _, iface := range ifaces {
		if !isAllowed(iface.Name) {
			extra = append(extra, iface.Name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("unexpected network interfaces %s: this is not a private network namespace", strings.Join(extra, ", "))
	}
	out, err := exec.Command("ip", "route", "get", metadataAddr).CombinedOutput()
	if err == nil {
		return fmt.Errorf("%s is routable (%s)", metadataAddr, strings.TrimSpace(string(out)))
	}
	return nil
}

func isAllowed(name string) bool {
	for _, ok := range AllowedInterfaces {
		if name == ok {
			return true
		}
	}
	return false
}

// mountPrivateSys mounts a fresh sysfs, so /sys/class/net shows the
// sandbox's interfaces rather than the machine's, and an empty, read-only
// tmpfs over /sys/fs/cgroup, so Nomad finds no cgroup controllers and never
// creates or changes cgroups of the machine. Read-only, so that no test can
// create directories there that change what other tests of the same run
// find. Both mounts live in the private mount namespace only.
func mountPrivateSys() error {
	const flags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if err := syscall.Mount("sysfs", "/sys", "sysfs", flags, ""); err != nil {
		return fmt.Errorf("mounting a private /sys: %w", err)
	}
	const cgroups = "/sys/fs/cgroup"
	if _, err := os.Stat(cgroups); err != nil {
		return nil
	}
	if err := syscall.Mount("tmpfs", cgroups, "tmpfs", flags|syscall.MS_RDONLY, "mode=0755"); err != nil {
		return fmt.Errorf("hiding %s: %w", cgroups, err)
	}
	return nil
}

// runAndReap starts argv and, as PID 1 of the namespace, reaps every
// orphaned process until argv itself exits. When it returns, the kernel kills
// whatever is left in the PID namespace.
func runAndReap(argv []string) int {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		return 127
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)

	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: false},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: starting %s: %v\n", argv[0], err)
		return 127
	}
	go func() {
		for sig := range signals {
			_ = syscall.Kill(pid, sig.(syscall.Signal))
		}
	}()
	for {
		var status syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &status, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: waiting: %v\n", err)
			return 2
		}
		if wpid != pid {
			continue
		}
		switch {
		case status.Exited():
			return status.ExitStatus()
		case status.Signaled():
			return 128 + int(status.Signal())
		}
	}
}
