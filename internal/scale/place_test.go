package scale

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smallJobspec is the example docs/scale.md shows: 2 instances × 10 nodes.
func smallJobspec() Jobspec {
	return Jobspec{
		ID: "nodesim", Datacenters: []string{"dc1"}, Instances: 2, NodesPerInstance: 10,
		Servers: []string{"10.0.0.1:4647", "10.0.0.2:4647", "10.0.0.3:4647"}, Command: DefaultJobCommand,
		Setup: 10 * time.Millisecond, Start: 250 * time.Millisecond, Kill: 50 * time.Millisecond,
	}
}

// TestJobspecGolden compares the jobspec with testdata/jobspec.hcl;
// NOMADFORK_UPDATE_GOLDEN=1 rewrites it.
func TestJobspecGolden(t *testing.T) {
	golden := filepath.Join("testdata", "jobspec.hcl")
	got := smallJobspec().HCL()
	if os.Getenv("NOMADFORK_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("jobspec differs from %s:\n%s", golden, got)
	}
}

func TestJobspecVariants(t *testing.T) {
	cases := []struct {
		name     string
		mod      func(*Jobspec)
		want     []string
		wantNone []string
	}{
		{"unique names per instance", func(*Jobspec) {}, []string{`"-name-prefix", "nodesim-${NOMAD_ALLOC_INDEX}"`, `count = 2`, `"-nodes", "10"`}, nil},
		{"state API on the mapped port", func(*Jobspec) {}, []string{`port "http" {}`, `"-http", "${NOMAD_ADDR_http}"`}, nil},
		{"data dir in the task dir", func(*Jobspec) {}, []string{`"-data-dir", "${NOMAD_TASK_DIR}/nodesim"`}, nil},
		{"the realistic runner's delays", func(j *Jobspec) { j.Start = time.Second }, []string{`"-realistic",`, `"-start-delay", "1s"`}, nil},
		{"the servers under test", func(*Jobspec) {}, []string{`"-servers", "10.0.0.1:4647,10.0.0.2:4647,10.0.0.3:4647"`}, nil},
		{"interface only when set", func(*Jobspec) {}, nil, []string{"-network-interface"}},
		{"interface", func(j *Jobspec) { j.NetworkInterface = "eth0" }, []string{`"-network-interface", "eth0"`}, nil},
		{"artifact", func(j *Jobspec) { j.Artifact = "https://example.com/nodesim"; j.Command = "nodesim" },
			[]string{`source      = "https://example.com/nodesim"`, `command = "local/nodesim"`}, nil},
		{"resources", func(j *Jobspec) { j.CPU, j.MemoryMB = 700, 300 }, []string{"cpu    = 700", "memory = 300"}, nil},
		{"default resources", func(j *Jobspec) { j.NodesPerInstance = 500 }, []string{"cpu    = 2600", "memory = 2064"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := smallJobspec()
			tc.mod(&j)
			hcl := j.HCL()
			for _, w := range tc.want {
				if !strings.Contains(hcl, w) {
					t.Errorf("no %s in:\n%s", w, hcl)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(hcl, w) {
					t.Errorf("%s in:\n%s", w, hcl)
				}
			}
		})
	}
}

func TestJobspecValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Jobspec)
		err  string
	}{
		{"ok", func(*Jobspec) {}, ""},
		{"no id", func(j *Jobspec) { j.ID = "" }, "job ID"},
		{"quoted id", func(j *Jobspec) { j.ID = `a"b` }, "job ID"},
		{"no datacenter", func(j *Jobspec) { j.Datacenters = nil }, "datacenter"},
		{"no instances", func(j *Jobspec) { j.Instances = 0 }, "at least 1"},
		{"no servers", func(j *Jobspec) { j.Servers = nil }, "servers under test"},
		{"server without port", func(j *Jobspec) { j.Servers = []string{"10.0.0.1"} }, "host:port"},
		{"server bad port", func(j *Jobspec) { j.Servers = []string{"10.0.0.1:99999"} }, "bad port"},
		{"relative command", func(j *Jobspec) { j.Command = "nodesim" }, "absolute path"},
		{"relative command with artifact", func(j *Jobspec) { j.Command, j.Artifact = "nodesim", "https://example.com/nodesim" }, ""},
		{"negative delay", func(j *Jobspec) { j.Kill = -time.Second }, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := smallJobspec()
			tc.mod(&j)
			checkErr(t, j.Validate(), tc.err)
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// parseConfig parses the scale verb's flags.
func parseConfig(t *testing.T, args ...string) (Config, map[string]bool) {
	t.Helper()
	var c Config
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	c.Flags(fs, t.TempDir())
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return c, set
}

func TestPlaceFlags(t *testing.T) {
	servers := "-servers=10.0.0.1:4647"
	cases := []struct {
		name string
		args []string
		err  string
		k    int
	}{
		{"default process", nil, "", 1},
		{"job, default instances", []string{"-place", "job"}, "", 2},
		{"job smoke: 2 × 10", []string{"-smoke", "-place", "job"}, "", 2},
		{"job 5 instances", []string{"-place", "job", "-instances", "5"}, "", 5},
		{"unknown place", []string{"-place", "pod"}, `-place "pod"`, 0},
		{"instances without job", []string{"-instances", "3"}, "needs -place job", 0},
		{"uneven split", []string{"-place", "job", "-instances", "3"}, "do not split evenly", 0},
		{"negative instances", []string{"-place", "job", "-instances", "-1"}, "negative", 0},
		{"jobspec-only without job", []string{"-jobspec-only", servers}, "need -place job", 0},
		{"jobspec-only without servers", []string{"-place", "job", "-jobspec-only"}, "-servers is required", 0},
		{"jobspec-only with sizes", []string{"-place", "job", "-jobspec-only", servers, "-sizes", "10,20"}, "-sizes runs in the sandbox", 0},
		{"place-addr with workloads", []string{"-place", "job", "-place-addr", "http://p:4646", servers, "-workloads", "rolling"}, "-workloads runs in the sandbox", 0},
		{"jobspec-only", []string{"-place", "job", "-jobspec-only", servers}, "", 2},
		{"servers in a sandbox run", []string{"-place", "job", servers}, "need -jobspec-only or -place-addr", 0},
		{"servers-http in a sandbox run", []string{"-place", "job", "-servers-http", "10.0.0.1:4646"}, "need -jobspec-only or -place-addr", 0},
		{"servers-http without place-addr", []string{"-place", "job", "-jobspec-only", servers, "-servers-http", "10.0.0.1:4646"}, "-servers-http needs -place-addr", 0},
		{"relative command", []string{"-place", "job", "-jobspec-only", servers, "-nodesim-command", "nodesim"}, "absolute path", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, set := parseConfig(t, tc.args...)
			var err error
			if c.Job.Operator() {
				err = c.ResolveOperator(set)
			} else {
				_, _, err = c.Resolve(set)
			}
			checkErr(t, err, tc.err)
			if err == nil && c.Scenario.K() != tc.k {
				t.Errorf("K = %d, want %d", c.Scenario.K(), tc.k)
			}
		})
	}
}

// TestOptionsRenderPlacement checks that the placement reaches the run in
// the sandbox.
func TestOptionsRenderPlacement(t *testing.T) {
	o := Options{Scenario: SmokeScenario}
	o.Place, o.Instances = PlaceJob, 4
	o.Nomad, o.Nodesim, o.Dir = "/bin/nomad", "/bin/nodesim", "/tmp/x"
	got, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if got.Placement != o.Placement {
		t.Errorf("placement %+v, want %+v", got.Placement, o.Placement)
	}
	if got.Limit() <= (Options{Scenario: SmokeScenario}).Limit() {
		t.Errorf("a job's limit %s leaves no time for the placement cluster", got.Limit())
	}
}

func TestMergeStates(t *testing.T) {
	got := mergeStates([]*NodesState{
		{Nodes: []NodeState{{Name: "nodesim-0-0"}}, HeapInuse: 10, Goroutines: 3},
		{Nodes: []NodeState{{Name: "nodesim-1-0"}, {Name: "nodesim-1-1"}}, HeapInuse: 5, Goroutines: 4},
	})
	if len(got.Nodes) != 3 || got.HeapInuse != 15 || got.Goroutines != 7 {
		t.Errorf("merged %+v", got)
	}
}

// TestPlaceAPISubmit checks the submission: the placement cluster parses
// the jobspec text, the parsed job is registered, the ACL token is sent,
// and the instances' state addresses are their allocations' mapped ports.
func TestPlaceAPISubmit(t *testing.T) {
	var parsed, registered bool
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/jobs/parse", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Nomad-Token") != "secret" {
			http.Error(w, "Permission denied", http.StatusForbidden)
			return
		}
		parsed = true
		w.Write([]byte(`{"ID":"nodesim"}`))
	})
	mux.HandleFunc("/v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		registered = parsed
		w.Write([]byte(`{"EvalID":"e1"}`))
	})
	mux.HandleFunc("/v1/job/nodesim/allocations", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"ID":"a0","Name":"nodesim.nodesim[0]","ClientStatus":"running"},{"ID":"a1","Name":"nodesim.nodesim[1]","ClientStatus":"running"}]`))
	})
	mux.HandleFunc("/v1/allocation/", func(w http.ResponseWriter, r *http.Request) {
		port := map[string]string{"/v1/allocation/a0": "20001", "/v1/allocation/a1": "20002"}[r.URL.Path]
		w.Write([]byte(`{"AllocatedResources":{"Shared":{"Ports":[{"Label":"http","Value":` + port + `,"HostIP":"10.0.1.5"}]}}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	api := NewPlaceAPI(srv.URL, "secret")
	ctx := context.Background()
	eval, err := api.Submit(ctx, smallJobspec().HCL())
	if err != nil || eval != "e1" || !registered {
		t.Fatalf("submit: eval %q, registered %v, err %v", eval, registered, err)
	}
	in, ok, err := api.Running(ctx, "nodesim", 2)
	if err != nil || !ok || len(in) != 2 {
		t.Fatalf("running: %v %v %v", in, ok, err)
	}
	if in[1].StateURL() != "http://10.0.1.5:20002/v1/state" {
		t.Errorf("state URL %s", in[1].StateURL())
	}
	if _, ok, _ := api.Running(ctx, "nodesim", 3); ok {
		t.Error("3 instances running, want 2")
	}
}

func TestPlacementWhere(t *testing.T) {
	if got := (Placement{}).Where(); got != "in one process" {
		t.Errorf("process: %q", got)
	}
	if got := (Placement{Place: PlaceJob}).Where(); !strings.Contains(got, "2 nodesim instances placed by a Nomad job") {
		t.Errorf("job: %q", got)
	}
}

// TestPlaceAPIFailedInstance checks that a failed simulator ends the wait
// at once rather than at the timeout.
func TestPlaceAPIFailedInstance(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"ID":"a0","Name":"nodesim.nodesim[0]","ClientStatus":"failed"}]`))
	}))
	defer srv.Close()
	start := time.Now()
	_, err := waitInstances(context.Background(), NewPlaceAPI(srv.URL, ""), smallJobspec(), time.Minute, 10*time.Millisecond)
	checkErr(t, err, "a simulator instance failed")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the wait took %s", d)
	}
}

// TestDocsJobspec checks that docs/scale.md shows the jobspec the tool
// writes for its example (`-place job -instances 2 -n 20 -servers
// 10.0.0.1:4647,10.0.0.2:4647,10.0.0.3:4647 -jobspec-only`).
func TestDocsJobspec(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := parseConfig(t, "-place", "job", "-instances", "2", "-n", "20", "-servers", "10.0.0.1:4647,10.0.0.2:4647,10.0.0.3:4647", "-jobspec-only")
	hcl := c.Job.Jobspec(c.Scenario).HCL()
	if hcl != smallJobspec().HCL() {
		t.Errorf("the example's flags give another jobspec than testdata/jobspec.hcl:\n%s", hcl)
	}
	if !strings.Contains(string(doc), "```hcl\n"+hcl+"```\n") {
		t.Errorf("docs/scale.md does not show the jobspec the tool writes for its example:\n%s", hcl)
	}
}

// TestRunOperator checks the operator's mode: -jobspec-only prints the
// jobspec and touches no cluster; -place-addr submits it and prints each
// instance's state URL.
func TestRunOperator(t *testing.T) {
	c, _ := parseConfig(t, "-place", "job", "-n", "20", "-servers", "10.0.0.1:4647", "-jobspec-only")
	var out strings.Builder
	if err := RunOperator(context.Background(), c.Scenario, c.Job, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "# 2 nodesim instances × 10 simulated nodes") || !strings.Contains(out.String(), `job "nodesim" {`) {
		t.Errorf("-jobspec-only printed:\n%s", out.String())
	}

	var submitted string
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/jobs/parse", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ JobHCL string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		submitted = body.JobHCL
		w.Write([]byte(`{"ID":"sim"}`))
	})
	mux.HandleFunc("/v1/jobs", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"EvalID":"e1"}`)) })
	mux.HandleFunc("/v1/job/sim/allocations", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"ID":"a0","Name":"sim.nodesim[0]","ClientStatus":"running"},{"ID":"a1","Name":"sim.nodesim[1]","ClientStatus":"running"}]`))
	})
	mux.HandleFunc("/v1/allocation/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"AllocatedResources":{"Shared":{"Ports":[{"Label":"http","Value":25000,"HostIP":"10.0.1.5"}]}}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// The servers under test: 20 ready simulated nodes, one not ready,
	// one that is no simulated node.
	var nodes []string
	for i := 0; i < 20; i++ {
		nodes = append(nodes, fmt.Sprintf(`{"Name":"nodesim-%d-%d","Status":"ready","Drivers":{"mock_driver":{"Detected":true,"Healthy":true}}}`, i/10, i%10))
	}
	nodes = append(nodes, `{"Name":"nodesim-1-10","Status":"initializing"}`, `{"Name":"web-1","Status":"ready","Drivers":{"mock_driver":{"Healthy":true}}}`)
	under := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/nodes" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("[" + strings.Join(nodes, ",") + "]"))
	}))
	defer under.Close()
	c, _ = parseConfig(t, "-place", "job", "-n", "20", "-servers", "10.0.0.1:4647", "-place-addr", srv.URL, "-job-id", "sim", "-servers-http", under.URL)
	out.Reset()
	if err := RunOperator(context.Background(), c.Scenario, c.Job, &out); err != nil {
		t.Fatal(err)
	}
	if submitted != c.Job.Jobspec(c.Scenario).HCL() {
		t.Errorf("submitted another text than the jobspec:\n%s", submitted)
	}
	if !strings.Contains(out.String(), "sim.nodesim[1]: http://10.0.1.5:25000/v1/state") || !strings.Contains(out.String(), "20 simulated nodes ready on") {
		t.Errorf("-place-addr printed:\n%s", out.String())
	}
}
