package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// AgentSpec describes one agent of a cluster.
type AgentSpec struct {
	Name string
	// Server makes a server; otherwise a client of ServerRPCs.
	Server bool
	// Host is the machine the agent runs on; Addr its address there.
	Host *Host `json:"-"`
	Addr string
	// HTTP, RPC and Serf are the agent's ports on Addr.
	HTTP, RPC, Serf int
	// Peers are the other servers' Serf addresses, for servers to join;
	// BootstrapExpect is the number of servers.
	Peers           []string
	BootstrapExpect int
	// ServerRPCs are the servers' RPC addresses, for clients.
	ServerRPCs []string
	// NetworkInterface is the client's network_interface.
	NetworkInterface string
	// RPCMaxConnsPerClient, when set, is a server's
	// limits.rpc_max_conns_per_client (0: no limit; Nomad's default is 100
	// connections per client IP address).
	RPCMaxConnsPerClient *int `json:",omitempty"`
	// Dir is the agent's directory: config and log.
	Dir string
	// Data is the agent's data_dir.
	Data string
	// Drivers are drivers a client allows besides mock_driver (a driver
	// that needs enabling, such as raw_exec, also needs its plugin block
	// in Extra).
	Drivers []string `json:",omitempty"`
	// Extra is HCL appended to the agent's configuration.
	Extra string `json:",omitempty"`
}

// HTTPAddr is the agent's HTTP address.
func (s AgentSpec) HTTPAddr() string { return fmt.Sprintf("%s:%d", s.Addr, s.HTTP) }

// RPCAddr is the agent's RPC address.
func (s AgentSpec) RPCAddr() string { return fmt.Sprintf("%s:%d", s.Addr, s.RPC) }

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Config renders the agent's HCL configuration.
func (s AgentSpec) Config() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\n", s.Name)
	fmt.Fprintf(&b, "data_dir = %q\n", s.Data)
	fmt.Fprintf(&b, "bind_addr = %q\n", s.Addr)
	b.WriteString(`region = "global"
datacenter = "dc1"
log_level = "INFO"
disable_update_check = true

`)
	fmt.Fprintf(&b, "ports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n\n", s.HTTP, s.RPC, s.Serf)
	fmt.Fprintf(&b, "advertise {\n  http = %[1]q\n  rpc  = %[1]q\n  serf = %[1]q\n}\n\n", s.Addr)
	if s.Server {
		expect := s.BootstrapExpect
		if expect == 0 {
			expect = 1
		}
		fmt.Fprintf(&b, "server {\n  enabled = true\n  bootstrap_expect = %d\n", expect)
		if len(s.Peers) > 0 {
			fmt.Fprintf(&b, "  server_join {\n    retry_join = %s\n    retry_interval = \"1s\"\n  }\n", quoteList(s.Peers))
		}
		b.WriteString("}\n\n")
		if s.RPCMaxConnsPerClient != nil {
			fmt.Fprintf(&b, "limits {\n  rpc_max_conns_per_client = %d\n}\n\n", *s.RPCMaxConnsPerClient)
		}
	} else {
		fmt.Fprintf(&b, `client {
  enabled = true
  servers = %s
  network_interface = %q
  options = {
    "driver.allowlist" = %q
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}

`, quoteList(s.ServerRPCs), s.NetworkInterface, strings.Join(append([]string{"mock_driver"}, s.Drivers...), ","))
	}
	b.WriteString("telemetry {\n  prometheus_metrics = true\n  disable_hostname = true\n}\n")
	if s.Extra != "" {
		b.WriteString("\n" + strings.TrimRight(s.Extra, "\n") + "\n")
	}
	return b.String()
}

// Agent is a nomad agent process. After Stop or Kill it may be started
// again on the same data dir (Cluster.Restart).
type Agent struct {
	Spec AgentSpec
	API  *Client

	mu      sync.Mutex
	nomad   string // the binary it runs (or last ran)
	cmd     *exec.Cmd
	done    chan struct{}
	err     error
	stopped bool // stopped on purpose: not a failure
}

// start writes the agent's config and starts `nomad agent -config` on its
// host, its output appended to Dir/agent.log.
func (a *Agent) start(nomad string) error {
	spec := a.Spec
	for _, d := range []string{spec.Dir, spec.Data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	cfg := filepath.Join(spec.Dir, "agent.hcl")
	if err := os.WriteFile(cfg, []byte(spec.Config()), 0o644); err != nil {
		return err
	}
	if err := a.launch(nomad, "agent", "-config", cfg); err != nil {
		return err
	}
	a.mu.Lock()
	a.nomad = nomad
	a.mu.Unlock()
	return nil
}

// Nomad is the nomad binary the agent runs, or ran last; "" if it never
// started.
func (a *Agent) Nomad() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nomad
}

// launch starts argv on the agent's host in its directory, its output
// appended to Dir/agent.log.
func (a *Agent) launch(argv ...string) error {
	spec := a.Spec
	log, err := os.OpenFile(filepath.Join(spec.Dir, "agent.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := spec.Host.Command(argv...)
	cmd.Dir = spec.Dir
	cmd.Stdout = log
	cmd.Stderr = log
	// Own process group: a ^C of the terminal reaches the bench, which
	// then stops the agents itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	done := make(chan struct{})
	a.mu.Lock()
	a.cmd, a.done, a.err, a.stopped = cmd, done, nil, false
	a.mu.Unlock()
	go func() {
		err := cmd.Wait()
		log.Close()
		a.mu.Lock()
		a.err = err
		a.mu.Unlock()
		close(done)
	}()
	return nil
}

// PID is the agent's process id (nsenter execs nomad in place), 0 if it
// never started.
func (a *Agent) PID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cmd == nil || a.cmd.Process == nil {
		return 0
	}
	return a.cmd.Process.Pid
}

// Exited reports whether the agent has exited, and how.
func (a *Agent) Exited() (bool, error) {
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if done == nil {
		return true, errors.New("never started")
	}
	select {
	case <-done:
		a.mu.Lock()
		defer a.mu.Unlock()
		return true, a.err
	default:
		return false, nil
	}
}

// Stopped reports whether the agent was stopped or killed on purpose.
func (a *Agent) Stopped() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stopped
}

func (a *Agent) signal(sig os.Signal) error {
	a.mu.Lock()
	cmd := a.cmd
	a.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return fmt.Errorf("%s: not started", a.Spec.Name)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%s: %v: %w", a.Spec.Name, sig, err)
	}
	return nil
}

// Stop sends SIGINT (a graceful leave) and waits up to grace for the agent
// to exit, then kills it. It reports whether the agent exited by itself.
func (a *Agent) Stop(grace time.Duration) bool {
	a.mu.Lock()
	a.stopped = true
	done := a.done
	a.mu.Unlock()
	if exited, _ := a.Exited(); exited {
		return true
	}
	_ = a.signal(syscall.SIGCONT) // a paused agent cannot handle SIGINT
	_ = a.signal(os.Interrupt)
	select {
	case <-done:
		return true
	case <-time.After(grace):
	}
	_ = a.signal(syscall.SIGKILL)
	<-done
	return false
}

// Kill sends SIGKILL (a crash) and waits for the agent to exit.
func (a *Agent) Kill() {
	a.mu.Lock()
	a.stopped = true
	done := a.done
	a.mu.Unlock()
	if exited, _ := a.Exited(); exited {
		return
	}
	_ = a.signal(syscall.SIGKILL)
	<-done
}

// Pause stops the agent with SIGSTOP (a stall: it keeps its sockets but
// answers nothing); Resume continues it with SIGCONT.
func (a *Agent) Pause() error { return a.signal(syscall.SIGSTOP) }

// Resume continues a paused agent.
func (a *Agent) Resume() error { return a.signal(syscall.SIGCONT) }

// LogTail returns the last n lines of the agent's log.
func (a *Agent) LogTail(n int) string {
	data, err := os.ReadFile(filepath.Join(a.Spec.Dir, "agent.log"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ErrAgentExited is returned when an agent exits that was not stopped on
// purpose.
var ErrAgentExited = errors.New("agent exited")

// CheckAlive fails if any agent has exited that was not stopped on purpose.
func CheckAlive(agents []*Agent) error {
	for _, a := range agents {
		if a.Stopped() {
			continue
		}
		if exited, err := a.Exited(); exited {
			return fmt.Errorf("%w: %s (%v); log tail:\n%s", ErrAgentExited, a.Spec.Name, err, a.LogTail(15))
		}
	}
	return nil
}

// WaitFor polls cond every interval until it returns true, an error
// wrapping ErrAgentExited, or the context or timeout ends.
func WaitFor(ctx context.Context, what string, timeout, interval time.Duration, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
			if errors.Is(err, ErrAgentExited) {
				return err
			}
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("waiting for %s: %w (last error: %v)", what, ctx.Err(), last)
			}
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(interval):
		}
	}
}
