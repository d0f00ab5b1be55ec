package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// UICheckArg is the hidden first argument with which the tool re-executes
// itself inside the sandbox to run the UI check.
const UICheckArg = "__ui-check"

// StubText is what upstream's binaries built without the ui tag serve at
// /ui/ (command/agent/stub_asset.go).
const StubText = "Nomad UI is not available in this binary"

// uiMarker is in the web UI's index page: the script of the Ember app's
// bundle (ui/dist/assets/nomad-ui-<hash>.js).
const uiMarker = "assets/nomad-ui-"

// AgentConfig is the dev agent's configuration: no update check, the
// cloud fingerprinters denied, the client on lo (the sandbox's only
// usable interface besides its veth pair).
const AgentConfig = `disable_update_check = true
bind_addr = "127.0.0.1"

client {
  network_interface = "lo"
  options = {
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}
`

// CheckUI starts a dev agent of the nomad binary at nomad inside a new
// sandbox (self is the tool's executable, re-run there with UICheckArg)
// and checks that it serves the web UI at /ui/. dir holds the agent's
// configuration and log.
func CheckUI(ctx context.Context, self, nomad, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if out, err := sandboxed(ctx, []string{self, UICheckArg, nomad, dir}); err != nil {
		return fmt.Errorf("UI check of %s: %w\n%s", nomad, err, strings.TrimSpace(out))
	}
	return nil
}

// sandboxed runs argv in the sandbox and returns its output, stdout and
// stderr together; it interrupts argv when ctx ends.
func sandboxed(ctx context.Context, argv []string) (string, error) {
	cmd, err := sandbox.Command(argv)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-ctx.Done():
		_ = cmd.Process.Signal(os.Interrupt)
		<-done
		return out.String(), ctx.Err()
	}
}

// UICheckMain runs inside the sandbox: args are the nomad binary and the
// directory for its configuration and log.
func UICheckMain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintf(stderr, "usage: %s nomad dir\n", UICheckArg)
		return 2
	}
	if err := uiCheck(context.Background(), args[0], args[1], 90*time.Second); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "ui check: /ui/ serves the web UI")
	return 0
}

func uiCheck(ctx context.Context, nomad, dir string, timeout time.Duration) error {
	cfg := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfg, []byte(AgentConfig), 0o644); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "agent.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	agent := exec.Command(nomad, "agent", "-dev", "-config", cfg)
	agent.Stdout, agent.Stderr = logf, logf
	if err := agent.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- agent.Wait() }()
	defer func() {
		_ = agent.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = agent.Process.Kill()
			<-exited
		}
	}()
	deadline := time.Now().Add(timeout)
	var last error
	for {
		status, body, err := get(ctx, "http://127.0.0.1:4646/ui/")
		if err == nil {
			return JudgeUI(status, body)
		}
		last = err
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the agent exited (%v) before serving /ui/; its log: %s", err, logPath)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the agent did not answer on /ui/ within %s (%v); its log: %s", timeout, last, logPath)
		}
	}
}

func get(ctx context.Context, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body), err
}

// JudgeUI decides whether a response to /ui/ is the web UI's index page.
func JudgeUI(status int, body string) error {
	switch {
	case strings.Contains(body, StubText):
		return errors.New("/ui/ serves upstream's stub page (\"" + StubText + "\"): the binary was built without the ui tag")
	case status != http.StatusOK:
		return fmt.Errorf("/ui/ answered %d", status)
	case !strings.Contains(body, uiMarker):
		return fmt.Errorf("/ui/ answered a page without the UI's script (%s*.js): %.200q", uiMarker, body)
	}
	return nil
}
