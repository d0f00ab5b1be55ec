package cluster

import (
	"strings"
	"testing"
)

func TestLayoutSingle(t *testing.T) {
	specs := Layout(Single, "/run", "/data", 3)
	if len(specs) != 4 || !specs[0].Server || specs[1].Server {
		t.Fatalf("specs %+v", specs)
	}
	ports := map[int]bool{}
	dirs := map[string]bool{}
	for _, s := range specs {
		if s.Addr != "127.0.0.1" {
			t.Errorf("%s on %s", s.Name, s.Addr)
		}
		for _, p := range []int{s.HTTP, s.RPC, s.Serf} {
			if ports[p] {
				t.Errorf("port %d used twice", p)
			}
			ports[p] = true
		}
		if dirs[s.Dir] {
			t.Errorf("dir %s used twice", s.Dir)
		}
		dirs[s.Dir] = true
	}
	if got := strings.Join(specs[2].ServerRPCs, ","); got != "127.0.0.1:4647" || specs[2].HTTPAddr() != "127.0.0.1:5020" {
		t.Errorf("client addresses %+v", specs[2])
	}
}

func TestLayoutMulti(t *testing.T) {
	specs := Layout(Multi, "/run", "/data", 3)
	if len(specs) != 6 {
		t.Fatalf("%d agents, want 6", len(specs))
	}
	addrs := map[string]bool{}
	for i, s := range specs {
		if s.Server != (i < 3) {
			t.Errorf("agent %d %s: server %v", i, s.Name, s.Server)
		}
		if addrs[s.Addr] {
			t.Errorf("address %s used twice", s.Addr)
		}
		addrs[s.Addr] = true
		if !strings.HasPrefix(s.Addr, "198.51.100.") || s.HTTP != 4646 {
			t.Errorf("%s at %s", s.Name, s.HTTPAddr())
		}
	}
	if got := strings.Join(specs[0].Peers, ","); got != "198.51.100.2:4648,198.51.100.3:4648" {
		t.Errorf("server1 peers %s", got)
	}
	if got := strings.Join(specs[4].ServerRPCs, ","); got != "198.51.100.1:4647,198.51.100.2:4647,198.51.100.3:4647" {
		t.Errorf("client servers %s", got)
	}
	server, client := specs[1].Config(), specs[5].Config()
	for _, want := range []string{"bootstrap_expect = 3", `retry_join = ["198.51.100.1:4648", "198.51.100.3:4648"]`, `bind_addr = "198.51.100.2"`} {
		if !strings.Contains(server, want) {
			t.Errorf("server config lacks %q:\n%s", want, server)
		}
	}
	for _, want := range []string{`network_interface = "eth0"`, `name = "client3"`, `rpc  = "198.51.100.6"`} {
		if !strings.Contains(client, want) {
			t.Errorf("client config lacks %q:\n%s", want, client)
		}
	}
}

func TestAgentConfig(t *testing.T) {
	specs := Layout(Single, "/run", "/data", 3)
	server, client := specs[0].Config(), specs[1].Config()
	for _, c := range []string{server, client} {
		for _, want := range []string{
			`bind_addr = "127.0.0.1"`,
			"disable_update_check = true",
			"prometheus_metrics = true",
			"disable_hostname = true",
		} {
			if !strings.Contains(c, want) {
				t.Errorf("config lacks %q:\n%s", want, c)
			}
		}
	}
	for _, want := range []string{"bootstrap_expect = 1", `data_dir = "/data/server"`, "http = 4646"} {
		if !strings.Contains(server, want) {
			t.Errorf("server config lacks %q:\n%s", want, server)
		}
	}
	if strings.Contains(server, "retry_join") {
		t.Errorf("a single server joins nobody:\n%s", server)
	}
	for _, want := range []string{
		`servers = ["127.0.0.1:4647"]`,
		`network_interface = "lo"`,
		`"driver.allowlist" = "mock_driver"`,
		`"fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"`,
		`name = "client1"`,
	} {
		if !strings.Contains(client, want) {
			t.Errorf("client config lacks %q:\n%s", want, client)
		}
	}
	if strings.Contains(client, "server {") || strings.Contains(server, "client {") {
		t.Error("server and client blocks mixed up")
	}
	if strings.Contains(server, "limits") {
		t.Errorf("Nomad's default limits unless set:\n%s", server)
	}
	unlimited := specs[0]
	unlimited.RPCMaxConnsPerClient = new(int)
	if c := unlimited.Config(); !strings.Contains(c, "limits {\n  rpc_max_conns_per_client = 0\n}") {
		t.Errorf("server config lacks the lifted RPC connection limit:\n%s", c)
	}
}

func TestParseTopology(t *testing.T) {
	for _, s := range []string{"single", "multi"} {
		if got, err := ParseTopology(s); err != nil || string(got) != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseTopology("star"); err == nil {
		t.Error("star accepted")
	}
}

// TestConfigDriversAndExtra: a client allows its extra drivers beside
// mock_driver and gets the extra HCL; without them it allows mock_driver
// only.
func TestConfigDriversAndExtra(t *testing.T) {
	specs := Layout(Multi, "/run", "/data", 1)
	client := specs[3]
	if cfg := client.Config(); !strings.Contains(cfg, `"driver.allowlist" = "mock_driver"`) || strings.Contains(cfg, "plugin") {
		t.Errorf("plain client config:\n%s", cfg)
	}
	client.Drivers = []string{"raw_exec"}
	client.Extra = "plugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}\n"
	cfg := client.Config()
	for _, want := range []string{`"driver.allowlist" = "mock_driver,raw_exec"`, "plugin \"raw_exec\" {\n  config {\n    enabled = true", "disable_update_check = true"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
}

func TestNomadOf(t *testing.T) {
	c := &Cluster{Spec: Spec{Nomad: "/up/nomad", AgentNomad: map[string]string{"client2": "/fork/nomad"}}}
	if got := c.nomadOf("client2"); got != "/fork/nomad" {
		t.Errorf("client2 runs %s", got)
	}
	if got := c.nomadOf("server1"); got != "/up/nomad" {
		t.Errorf("server1 runs %s", got)
	}
}
