package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestEvents decodes the event stream's ndjson: heartbeats are skipped,
// allocations and evaluations decoded with the fields the bench times by.
func TestEvents(t *testing.T) {
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		fmt.Fprintln(w, `{}`)
		fmt.Fprintln(w, `{"Index":7,"Events":[{"Topic":"Allocation","Type":"AllocationUpdated","Key":"a1","Index":7,"Payload":{"Allocation":{`+
			`"ID":"a1","JobID":"j","EvalID":"e1","NodeID":"n1","ClientStatus":"complete","ModifyIndex":7,"ModifyTime":1700000000123456789,`+
			`"DeploymentStatus":{"Healthy":true,"Timestamp":"2026-12-02T03:00:00.5Z"},`+
			`"TaskStates":{"task":{"State":"dead","StartedAt":"2026-12-02T03:00:00Z","FinishedAt":"2026-12-02T03:00:01Z"}}}}},`+
			`{"Topic":"Evaluation","Type":"EvaluationUpdated","Key":"e2","Index":7,"Payload":{"Evaluation":{"ID":"e2","JobID":"j","Status":"blocked"}}}]}`)
	}))
	defer srv.Close()
	c := NewClient(strings.TrimPrefix(srv.URL, "http://"))
	var got []Event
	err := c.Events(context.Background(), 5, func(e Event) { got = append(got, e) })
	if err == nil || !strings.Contains(err.Error(), "ended") {
		t.Errorf("a closed stream: %v", err)
	}
	if !strings.Contains(query, "topic=Allocation%3A%2A") || !strings.Contains(query, "topic=Evaluation%3A%2A") || !strings.Contains(query, "index=5") {
		t.Errorf("query %s", query)
	}
	if len(got) != 2 {
		t.Fatalf("events %+v", got)
	}
	a := got[0].Payload.Allocation
	if a == nil || a.ModifyTime != 1700000000123456789 || a.EvalID != "e1" || a.DeploymentStatus.Timestamp.IsZero() ||
		!a.TaskStates["task"].FinishedAt.Equal(time.Date(2026, 12, 2, 3, 0, 1, 0, time.UTC)) {
		t.Errorf("allocation %+v", a)
	}
	if e := got[1].Payload.Evaluation; e == nil || e.Status != "blocked" || e.JobID != "j" {
		t.Errorf("evaluation %+v", e)
	}
}

// TestNoDeploymentUpdate: `update { max_parallel = 0 }` sends MaxParallel
// alone, so Nomad fills in the other fields' defaults rather than zeros it
// would reject.
func TestNoDeploymentUpdate(t *testing.T) {
	data, err := json.Marshal(TaskGroup{Update: &UpdateStrategy{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"Update":{"MaxParallel":0}`) {
		t.Errorf("%s", data)
	}
}

// TestNodeAPI checks the requests of the drain, dispatch, deregister and
// GC calls.
func TestNodeAPI(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		calls = append(calls, fmt.Sprintf("%s %s %v", r.Method, r.URL.RequestURI(), body))
		if strings.HasSuffix(r.URL.Path, "/dispatch") {
			fmt.Fprint(w, `{"DispatchedJobID":"d/dispatch-1"}`)
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	c := NewClient(strings.TrimPrefix(srv.URL, "http://"))
	ctx := context.Background()
	if err := c.Drain(ctx, "n1", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := c.Undrain(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if id, err := c.Dispatch(ctx, "d"); err != nil || id != "d/dispatch-1" {
		t.Fatalf("dispatch %q %v", id, err)
	}
	if err := c.Deregister(ctx, "a/b", true); err != nil {
		t.Fatal(err)
	}
	if err := c.GC(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"POST /v1/node/n1/drain map[DrainSpec:map[Deadline:3.6e+12] NodeID:n1]",
		"POST /v1/node/n1/drain map[MarkEligible:true NodeID:n1]",
		"POST /v1/job/d/dispatch map[JobID:d]",
		"DELETE /v1/job/a%2Fb?purge=true map[]",
		"PUT /v1/system/gc map[]",
	}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}
