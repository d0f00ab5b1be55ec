package series

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
)

func graphPatch(t *testing.T, n int, file string, deps ...int) Patch {
	t.Helper()
	var trailers []string
	for _, d := range deps {
		trailers = append(trailers, fmt.Sprintf("Depends-On: %04d", d))
	}
	data := []byte("Subject: [PATCH] client: x\n\nWhy.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n" +
		strings.Join(trailers, "\n") + "\n---\ndiff --git a/" + file + " b/" + file + "\n")
	md, err := metadata.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return Patch{Name: fmt.Sprintf("%04d-x.patch", n), Number: n, Data: data, Meta: md}
}

func TestGraph(t *testing.T) {
	patches := []Patch{
		graphPatch(t, 1, "a.go"),
		graphPatch(t, 2, "b.go", 1),
		graphPatch(t, 3, "c.go"),
		graphPatch(t, 4, "d.go", 2, 9), // 0009 does not exist: the lint's job, ignored here
	}
	nodes, err := Graph(patches)
	if err != nil {
		t.Fatal(err)
	}
	wantDeps := [][]int{nil, {1}, nil, {1, 2}}
	for i, n := range nodes {
		if !reflect.DeepEqual(n.Deps, wantDeps[i]) {
			t.Errorf("%s: deps %v, want %v", n.Patch.Name, n.Deps, wantDeps[i])
		}
	}
	if got := nodes[3].Declared; !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("declared %v, want [2]", got)
	}
	if got := nodes[3].On(); got != "the base + 0001 + 0002" {
		t.Errorf("On = %q", got)
	}
	if got := nodes[2].On(); got != "the bare base" || !nodes[2].Standalone() || nodes[2].Prefix() {
		t.Errorf("0003: On %q, standalone %v, prefix %v", got, nodes[2].Standalone(), nodes[2].Prefix())
	}
	if !nodes[1].Prefix() {
		t.Error("0002 depends on every earlier patch: a prefix")
	}
	var names []string
	for _, p := range nodes[3].WithDeps(nodes) {
		names = append(names, p.Name)
	}
	if want := []string{"0001-x.patch", "0002-x.patch", "0004-x.patch"}; !reflect.DeepEqual(names, want) {
		t.Errorf("WithDeps = %v, want %v", names, want)
	}
	if !reflect.DeepEqual(nodes[3].Files, []string{"d.go"}) {
		t.Errorf("Files = %v", nodes[3].Files)
	}
}
