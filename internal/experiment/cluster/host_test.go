package cluster

import (
	"strings"
	"testing"
)

func TestCheckRoutes(t *testing.T) {
	isolated := `198.51.100.0/24 dev eth0 proto kernel scope link src 198.51.100.4
local 127.0.0.0/8 dev lo table local proto kernel scope host src 127.0.0.1
local 198.51.100.4 dev eth0 table local proto kernel scope host src 198.51.100.4
broadcast 198.51.100.255 dev eth0 table local proto kernel scope link src 198.51.100.4
`
	if err := checkRoutes(isolated); err != nil {
		t.Errorf("an isolated host: %v", err)
	}
	for _, route := range []string{
		"default via 198.51.100.254 dev eth0",
		"169.254.0.0/16 dev eth0 scope link",
		"192.0.2.0/24 via 198.51.100.254 dev eth0",
	} {
		err := checkRoutes(isolated + route + "\n")
		if err == nil || !strings.Contains(err.Error(), route) {
			t.Errorf("%q: %v", route, err)
		}
	}
}

func TestSharedHost(t *testing.T) {
	h := &Host{Name: "sandbox", Addr: "127.0.0.1"}
	if !h.Shared() || h.CheckIsolated(t.Context()) != nil {
		t.Error("the sandbox's own namespace is checked by the sandbox")
	}
	if err := h.SetLink(t.Context(), false); err == nil || !strings.Contains(err.Error(), "-topology multi") {
		t.Errorf("link down on a shared host: %v", err)
	}
	if _, err := h.Counters(); err == nil {
		t.Error("a shared host has no counters")
	}
	if got := h.Command("ip", "link").Args; strings.Join(got, " ") != "ip link" {
		t.Errorf("shared host command %q", got)
	}
}

func TestReachCommands(t *testing.T) {
	join := func(cmds [][]string) string {
		var lines []string
		for _, c := range cmds {
			lines = append(lines, strings.Join(c, " "))
		}
		return strings.Join(lines, "; ")
	}
	if got, want := join(reachCommands("198.51.100.2", false)), "ip route add unreachable 198.51.100.2/32; ss -K -t dst 198.51.100.2"; got != want {
		t.Errorf("cut: %q, want %q", got, want)
	}
	if got, want := join(reachCommands("198.51.100.2", true)), "ip route del unreachable 198.51.100.2/32"; got != want {
		t.Errorf("heal: %q, want %q", got, want)
	}
	h := &Host{Name: "sandbox", Addr: "127.0.0.1"}
	if err := h.SetReachable(t.Context(), "127.0.0.2", false); err == nil || !strings.Contains(err.Error(), "-topology multi") {
		t.Errorf("separating on a shared host: %v", err)
	}
}

func TestSeparateSharedHost(t *testing.T) {
	h := &Host{Name: "sandbox", Addr: "127.0.0.1"}
	s1 := &Agent{Spec: AgentSpec{Name: "server1", Server: true, Host: h}}
	s2 := &Agent{Spec: AgentSpec{Name: "server2", Server: true, Host: h}}
	c1 := &Agent{Spec: AgentSpec{Name: "client1", Host: h}}
	c := &Cluster{Servers: []*Agent{s1, s2}, Clients: []*Agent{c1}}
	if o := c.Others(s1); len(o) != 1 || o[0] != s2 {
		t.Errorf("others of server1: %v", o)
	}
	if err := c.Pin(t.Context(), c.Clients, s1, true); err == nil || !strings.Contains(err.Error(), "client1 and server2 share a host") {
		t.Errorf("pinning on one host: %v", err)
	}
}
