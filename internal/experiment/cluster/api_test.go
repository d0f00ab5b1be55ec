package cluster

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func TestBenchJobJSON(t *testing.T) {
	data, err := json.Marshal(map[string]any{"Job": BenchJob("bench", 300, 1)})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Job struct {
			ID, Type   string
			TaskGroups []struct {
				Count  int
				Update struct {
					MaxParallel    int
					MinHealthyTime int64
					HealthCheck    string
				}
				Tasks []struct {
					Driver string
					Config map[string]string
					Env    map[string]string
				}
			}
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	g := got.Job.TaskGroups[0]
	if got.Job.ID != "bench" || got.Job.Type != "service" || g.Count != 300 {
		t.Errorf("job %s", data)
	}
	if g.Update.MaxParallel != 50 || g.Update.MinHealthyTime != int64(2*time.Second) || g.Update.HealthCheck != "task_states" {
		t.Errorf("update %+v", g.Update)
	}
	task := g.Tasks[0]
	if task.Driver != "mock_driver" || task.Config["run_for"] != "1h" || task.Env["BENCH_JOB_VERSION"] != "1" {
		t.Errorf("task %+v", task)
	}
	if strings.Contains(string(data), "MaxClientDisconnect") {
		t.Errorf("max_client_disconnect set without being asked for: %s", data)
	}
}

func TestServiceJobMaxClientDisconnect(t *testing.T) {
	j := ServiceJob("faults", 30, 0, 10)
	d := 2 * time.Minute
	j.TaskGroups[0].MaxClientDisconnect = &d
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TaskGroups []struct {
			MaxClientDisconnect int64
			Update              struct{ MaxParallel int }
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if g := got.TaskGroups[0]; g.MaxClientDisconnect != int64(d) || g.Update.MaxParallel != 10 {
		t.Errorf("group %+v from %s", g, data)
	}
}

func TestClient(t *testing.T) {
	prom, err := os.ReadFile("testdata/server.prom")
	if err != nil {
		t.Fatal(err)
	}
	var registered map[string]json.RawMessage
	restarted := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/jobs" && r.Method == http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &registered)
			w.Write([]byte(`{"EvalID":"x"}`))
		case r.URL.Path == "/v1/job/bench/deployment":
			if r.URL.Query().Get("index") != "7" || r.URL.Query().Get("wait") != "5s" {
				t.Errorf("blocking query %s", r.URL.RawQuery)
			}
			w.Header().Set("X-Nomad-Index", "9")
			w.Write([]byte(`{"ID":"d1","JobVersion":1,"Status":"successful"}`))
		case r.URL.Path == "/v1/job/bench/allocations":
			w.Write([]byte(`[{"ID":"a","ClientStatus":"running"}]`))
		case r.URL.Path == "/v1/metrics" && r.URL.Query().Get("format") == "prometheus":
			w.Write(prom)
		case r.URL.Path == "/v1/client/allocation/a/restart" && r.Method == http.MethodPut:
			restarted++
			w.Write([]byte(`{}`))
		case r.URL.Path == "/v1/status/leader":
			w.Write([]byte(`"127.0.0.1:4647"`))
		default:
			http.Error(w, "no such path", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := NewClient(strings.TrimPrefix(srv.URL, "http://"))
	ctx := context.Background()
	if err := c.Register(ctx, BenchJob("bench", 3, 0)); err != nil {
		t.Fatal(err)
	}
	if _, ok := registered["Job"]; !ok {
		t.Errorf("register body has no Job: %v", registered)
	}
	d, idx, err := c.LatestDeployment(ctx, "bench", 7, 5*time.Second)
	if err != nil || idx != 9 || d.Status != DeploymentSuccessful || d.JobVersion != 1 {
		t.Errorf("deployment %+v %d %v", d, idx, err)
	}
	allocs, err := c.Allocations(ctx, "bench")
	if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != "running" {
		t.Errorf("allocs %+v %v", allocs, err)
	}
	m, err := c.Metrics(ctx)
	if v, _ := m.Value(MetricRaftApply); err != nil || v != 259 {
		t.Errorf("metrics %v %v", v, err)
	}
	if l, err := c.Leader(ctx); err != nil || l != "127.0.0.1:4647" {
		t.Errorf("leader %q %v", l, err)
	}
	if err := c.RestartAlloc(ctx, "a"); err != nil || restarted != 1 {
		t.Errorf("restart: %v, %d requests", err, restarted)
	}
	// A shared host dials from the sandbox's own namespace.
	local := (&Host{Name: "sandbox", Addr: "127.0.0.1"}).LocalAPI(strings.TrimPrefix(srv.URL, "http://"))
	if err := local.RestartAlloc(ctx, "a"); err != nil || restarted != 2 {
		t.Errorf("restart through LocalAPI: %v, %d requests", err, restarted)
	}
	if _, err := c.Nodes(ctx); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a 404 is an error: %v", err)
	}
}

func TestClientSnapshotAndGC(t *testing.T) {
	snap := []byte("\x1f\x8bsnapshot archive")
	var restored []byte
	gcs := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/operator/snapshot" && r.Method == http.MethodGet:
			w.Write(snap)
		case r.URL.Path == "/v1/operator/snapshot" && r.Method == http.MethodPut:
			restored, _ = io.ReadAll(r.Body)
			if string(restored) == "bad" {
				http.Error(w, "failed to restore", http.StatusInternalServerError)
			}
		case r.URL.Path == "/v1/system/gc" && r.Method == http.MethodPut:
			gcs++
		default:
			http.Error(w, "no such path", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := NewClient(strings.TrimPrefix(srv.URL, "http://"))
	ctx := context.Background()
	got, err := c.SnapshotSave(ctx)
	if err != nil || string(got) != string(snap) {
		t.Fatalf("save: %q, %v", got, err)
	}
	if err := c.SnapshotRestore(ctx, got); err != nil || string(restored) != string(snap) {
		t.Errorf("restore sent %q: %v", restored, err)
	}
	if err := c.SnapshotRestore(ctx, []byte("bad")); err == nil || !strings.Contains(err.Error(), "failed to restore") {
		t.Errorf("a refused restore is an error: %v", err)
	}
	if err := c.GarbageCollect(ctx); err != nil || gcs != 1 {
		t.Errorf("gc: %v, %d requests", err, gcs)
	}
	snap = nil
	if _, err := c.SnapshotSave(ctx); err == nil {
		t.Error("an empty snapshot is an error")
	}
}
