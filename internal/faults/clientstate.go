package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// check reads the servers' view, stops the clients, reads each client's
// stored state with `nomad operator client-state`, and compares.
func (r *run) check(ctx context.Context) error {
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return err
	}
	allocs, err := api.Allocations(qctx, JobID)
	if err != nil {
		return fmt.Errorf("reading the servers' allocations: %w", err)
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return fmt.Errorf("reading the nodes: %w", err)
	}
	names := map[string]string{}
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	r.res.Allocs = len(allocs)
	servers := ServerView(allocs, names)

	// The client's state database is open while it runs: stop the clients
	// (their tasks keep running, as on any agent restart) and read it.
	views := map[string]ClientView{}
	for _, a := range r.c.Clients {
		a.Stop(15 * time.Second)
	}
	for _, a := range r.c.Clients {
		view, err := r.clientState(ctx, a)
		if err != nil {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s: %v", a.Spec.Name, err))
			r.logf("%s: %v", a.Spec.Name, err)
			views[a.Spec.Name] = nil
			continue
		}
		views[a.Spec.Name] = view
	}
	r.res.Verdict = Check(servers, views)
	if err := os.WriteFile(filepath.Join(r.opts.Dir, "views.json"), mustJSON(map[string]any{"servers": servers, "clients": views, "verdict": r.res.Verdict}), 0o644); err != nil {
		r.logf("saving the views: %v", err)
	}
	r.logf("checked %d allocations: %d lost, %d duplicate runs, %d re-run after a failed restore, %d unchecked", r.res.Checked, len(r.res.Lost), len(r.res.Duplicates), len(r.res.Rerun), r.res.Unchecked)
	for _, f := range r.res.Lost {
		r.logf("lost: %s", f)
	}
	for _, f := range r.res.Duplicates {
		r.logf("duplicate: %s", f)
	}
	return nil
}

func mustJSON(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return []byte(err.Error())
	}
	return data
}

// clientState runs `nomad operator client-state` of the binary the client
// ran last on the stopped client's state directory.
func (r *run) clientState(ctx context.Context, a *cluster.Agent) (ClientView, error) {
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(qctx, a.Nomad(), "operator", "client-state", filepath.Join(a.Spec.Data, "client"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("nomad operator client-state: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := os.WriteFile(filepath.Join(a.Spec.Dir, "client-state.json"), out, 0o644); err != nil {
		r.logf("saving %s's state: %v", a.Spec.Name, err)
	}
	return ParseClientState(out)
}
