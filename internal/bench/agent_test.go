package bench

import (
	"strings"
	"testing"
)

func TestCluster(t *testing.T) {
	specs := Cluster("/run", "/data", 3)
	if len(specs) != 4 || !specs[0].Server || specs[1].Server {
		t.Fatalf("specs %+v", specs)
	}
	ports := map[int]bool{}
	dirs := map[string]bool{}
	for _, s := range specs {
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
	if specs[2].ServerRPC != "127.0.0.1:4647" || specs[2].HTTPAddr() != "127.0.0.1:5020" {
		t.Errorf("client addresses %+v", specs[2])
	}
}

func TestAgentConfig(t *testing.T) {
	specs := Cluster("/run", "/data", 3)
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
}
