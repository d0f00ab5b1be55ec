package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// AgentSpec describes one agent of the scenario's cluster.
type AgentSpec struct {
	Name string
	// Server makes a server; otherwise a client of ServerRPC.
	Server bool
	// HTTP, RPC and Serf are the agent's ports on 127.0.0.1.
	HTTP, RPC, Serf int
	// ServerRPC is the server's RPC address, for clients.
	ServerRPC string
	// Dir is the agent's directory: config and log.
	Dir string
	// Data is the agent's data_dir.
	Data string
}

// Cluster returns the scenario's agents: one server and clients clients,
// each with its own ports, directory under dir and data dir under data.
func Cluster(dir, data string, clients int) []AgentSpec {
	server := AgentSpec{Name: "server", Server: true, HTTP: 4646, RPC: 4647, Serf: 4648,
		Dir: filepath.Join(dir, "server"), Data: filepath.Join(data, "server")}
	specs := []AgentSpec{server}
	for i := 1; i <= clients; i++ {
		p := 5000 + 10*i
		specs = append(specs, AgentSpec{
			Name: fmt.Sprintf("client%d", i), HTTP: p, RPC: p + 1, Serf: p + 2,
			ServerRPC: fmt.Sprintf("127.0.0.1:%d", server.RPC),
			Dir:       filepath.Join(dir, fmt.Sprintf("client%d", i)),
			Data:      filepath.Join(data, fmt.Sprintf("client%d", i)),
		})
	}
	return specs
}

// HTTPAddr is the agent's HTTP address.
func (s AgentSpec) HTTPAddr() string { return fmt.Sprintf("127.0.0.1:%d", s.HTTP) }

// Config renders the agent's HCL configuration.
func (s AgentSpec) Config() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\n", s.Name)
	fmt.Fprintf(&b, "data_dir = %q\n", s.Data)
	b.WriteString(`region = "global"
datacenter = "dc1"
bind_addr = "127.0.0.1"
log_level = "INFO"
disable_update_check = true

`)
	fmt.Fprintf(&b, "ports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n\n", s.HTTP, s.RPC, s.Serf)
	b.WriteString("advertise {\n  http = \"127.0.0.1\"\n  rpc  = \"127.0.0.1\"\n  serf = \"127.0.0.1\"\n}\n\n")
	if s.Server {
		b.WriteString("server {\n  enabled = true\n  bootstrap_expect = 1\n}\n\n")
	} else {
		fmt.Fprintf(&b, `client {
  enabled = true
  servers = [%q]
  network_interface = "lo"
  options = {
    "driver.allowlist" = "mock_driver"
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}

`, s.ServerRPC)
	}
	b.WriteString("telemetry {\n  prometheus_metrics = true\n  disable_hostname = true\n}\n")
	return b.String()
}

// Agent is a running nomad agent process.
type Agent struct {
	Spec AgentSpec
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// StartAgent writes the agent's config and starts `nomad agent -config`
// with its output in Dir/agent.log.
func StartAgent(nomad string, spec AgentSpec) (*Agent, error) {
	for _, d := range []string{spec.Dir, spec.Data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	cfg := filepath.Join(spec.Dir, "agent.hcl")
	if err := os.WriteFile(cfg, []byte(spec.Config()), 0o644); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(spec.Dir, "agent.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(nomad, "agent", "-config", cfg)
	cmd.Dir = spec.Dir
	cmd.Stdout = log
	cmd.Stderr = log
	// Own process group: a ^C of the terminal reaches the bench, which
	// then stops the agents itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	a := &Agent{Spec: spec, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		a.err = cmd.Wait()
		log.Close()
		close(a.done)
	}()
	return a, nil
}

// PID is the agent's process id.
func (a *Agent) PID() int { return a.cmd.Process.Pid }

// Exited reports whether the agent has exited, and how.
func (a *Agent) Exited() (bool, error) {
	select {
	case <-a.done:
		return true, a.err
	default:
		return false, nil
	}
}

// Stop sends SIGINT and waits up to grace for the agent to exit, then kills
// it. It reports whether the agent exited by itself.
func (a *Agent) Stop(grace time.Duration) bool {
	if exited, _ := a.Exited(); exited {
		return true
	}
	_ = a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.done:
		return true
	case <-time.After(grace):
	}
	_ = a.cmd.Process.Kill()
	<-a.done
	return false
}

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

// errAgentExited is returned when an agent exits while the scenario runs.
var errAgentExited = errors.New("agent exited")

// checkAlive fails if any agent has exited.
func checkAlive(agents []*Agent) error {
	for _, a := range agents {
		if exited, err := a.Exited(); exited {
			return fmt.Errorf("%w: %s (%v); log tail:\n%s", errAgentExited, a.Spec.Name, err, a.LogTail(15))
		}
	}
	return nil
}

// waitFor polls cond every interval until it returns true, an error, or the
// context or timeout ends.
func waitFor(ctx context.Context, what string, timeout, interval time.Duration, cond func() (bool, error)) error {
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
			if errors.Is(err, errAgentExited) {
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
