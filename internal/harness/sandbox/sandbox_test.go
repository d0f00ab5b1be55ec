package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitArg {
		os.Exit(Init(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func sandboxed(t *testing.T, script string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	cmd, err := Command([]string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestSandboxNetwork(t *testing.T) {
	out, err := sandboxed(t, "ls /sys/class/net; echo ---; ip route get 169.254.169.254 || echo metadata-unreachable; "+
		"ip route get 10.1.2.3 || echo private-unreachable; ip route show default")
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, out)
	}
	ifaces, rest, _ := strings.Cut(out, "---")
	if got := strings.Fields(ifaces); strings.Join(got, " ") != "lo veth0 veth1" {
		t.Errorf("interfaces = %v, want lo veth0 veth1", got)
	}
	for _, want := range []string{"metadata-unreachable", "private-unreachable", "default via 192.0.2.254 dev veth0"} {
		if !strings.Contains(rest, want) {
			t.Errorf("sandbox output lacks %q:\n%s", want, rest)
		}
	}
}

func TestSandboxHidesCgroupsAndOwnsPIDs(t *testing.T) {
	out, err := sandboxed(t, "echo cgroups:$(ls /sys/fs/cgroup | wc -l); echo pid1:$(cat /proc/1/cmdline | tr '\\0' ' '); "+
		"mkdir /sys/fs/cgroup/cpuset 2>/dev/null && echo cgroups-writable; true")
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, out)
	}
	if !strings.Contains(out, "cgroups:0") {
		t.Errorf("machine cgroups visible in the sandbox:\n%s", out)
	}
	if strings.Contains(out, "\ncgroups-writable") {
		t.Errorf("the hidden /sys/fs/cgroup is writable:\n%s", out)
	}
	if !strings.Contains(out, "pid1:") || !strings.Contains(out, InitArg) {
		t.Errorf("PID 1 is not the sandbox init:\n%s", out)
	}
}

func TestSandboxKillsLeftoverProcesses(t *testing.T) {
	const marker = "4711.0815"
	// The command leaves a background process behind and exits.
	out, err := sandboxed(t, "sleep "+marker+" & echo started")
	if err != nil {
		t.Fatalf("sandbox: %v\n%s", err, out)
	}
	// When the sandbox's first process exits, the kernel kills and reaps
	// everything in its PID namespace before the sandbox command returns.
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), marker) {
			t.Errorf("a process outlived the sandbox: %s %q", p, data)
		}
	}
}

func TestSandboxExitCode(t *testing.T) {
	_, err := sandboxed(t, "exit 3")
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 3 {
		t.Errorf("exit = %v, want status 3", err)
	}
}
