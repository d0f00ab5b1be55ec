package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// PlaceAPI talks to the placement cluster's HTTP API: the cluster that
// runs the simulators, not the one under test.
type PlaceAPI struct {
	// Addr is the API's address, http(s)://host:port.
	Addr string
	// Token is the ACL token sent as X-Nomad-Token ("" for none).
	Token string
	HTTP  *http.Client
}

// NewPlaceAPI returns the API at addr (a URL, or host:port for http).
func NewPlaceAPI(addr, token string) *PlaceAPI {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return &PlaceAPI{Addr: strings.TrimRight(addr, "/"), Token: token, HTTP: &http.Client{Timeout: time.Minute}}
}

func (a *PlaceAPI) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Addr+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Token != "" {
		req.Header.Set("X-Nomad-Token", a.Token)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("placement cluster: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("placement cluster: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("placement cluster: %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("placement cluster: %s %s: decoding: %w", method, path, err)
	}
	return nil
}

// Submit has the placement cluster parse the jobspec (so what runs is the
// text an operator reviews) and registers the job. It returns the
// registration's evaluation ID.
func (a *PlaceAPI) Submit(ctx context.Context, hcl string) (string, error) {
	var job json.RawMessage
	if err := a.do(ctx, http.MethodPost, "/v1/jobs/parse", map[string]any{"JobHCL": hcl, "Canonicalize": true}, &job); err != nil {
		return "", fmt.Errorf("parsing the jobspec: %w", err)
	}
	var resp struct{ EvalID string }
	if err := a.do(ctx, http.MethodPost, "/v1/jobs", map[string]any{"Job": job}, &resp); err != nil {
		return "", fmt.Errorf("registering the job: %w", err)
	}
	return resp.EvalID, nil
}

// Stop deregisters the job (purged).
func (a *PlaceAPI) Stop(ctx context.Context, jobID string) error {
	return a.do(ctx, http.MethodDelete, "/v1/job/"+url.PathEscape(jobID)+"?purge=true", nil, nil)
}

// ReadyNodes counts the simulated nodes (named JobNodePrefix...) that are
// ready with a healthy mock driver: the API is a server under test's.
func (a *PlaceAPI) ReadyNodes(ctx context.Context) (int, error) {
	var nodes []cluster.NodeStub
	if err := a.do(ctx, http.MethodGet, "/v1/nodes", nil, &nodes); err != nil {
		return 0, err
	}
	return readyNodes(nodes), nil
}

// PlacedAlloc is the part of a placement allocation the tool reads.
type PlacedAlloc struct {
	ID            string
	Name          string
	NodeID        string
	ClientStatus  string
	DesiredStatus string
}

// Allocations lists the job's allocations.
func (a *PlaceAPI) Allocations(ctx context.Context, jobID string) ([]PlacedAlloc, error) {
	var out []PlacedAlloc
	err := a.do(ctx, http.MethodGet, "/v1/job/"+url.PathEscape(jobID)+"/allocations", nil, &out)
	return out, err
}

// HTTPAddr returns the host address (ip:port) of the allocation's port
// labelled label.
func (a *PlaceAPI) HTTPAddr(ctx context.Context, allocID, label string) (string, error) {
	var alloc struct {
		AllocatedResources *struct {
			Shared struct {
				Ports []struct {
					Label  string
					Value  int
					HostIP string
				}
			}
		}
	}
	if err := a.do(ctx, http.MethodGet, "/v1/allocation/"+url.PathEscape(allocID), nil, &alloc); err != nil {
		return "", err
	}
	if alloc.AllocatedResources != nil {
		for _, p := range alloc.AllocatedResources.Shared.Ports {
			if p.Label == label && p.HostIP != "" && p.Value > 0 {
				return p.HostIP + ":" + strconv.Itoa(p.Value), nil
			}
		}
	}
	return "", fmt.Errorf("allocation %s has no port %q", allocID, label)
}

// errInstanceFailed is a simulator instance that failed or was lost.
var errInstanceFailed = errors.New("a simulator instance failed")

// Instance is a running simulator instance: its allocation and the
// address of its state API.
type Instance struct {
	Alloc string `json:"alloc"`
	Name  string `json:"name"`
	Addr  string `json:"addr"`
}

// StateURL is the instance's nodes' own view.
func (i Instance) StateURL() string { return "http://" + i.Addr + statePath }

// Running returns the job's instances once want allocations run, or
// ok=false while they do not; it fails if an allocation failed (the job
// neither restarts nor reschedules a simulator).
func (a *PlaceAPI) Running(ctx context.Context, jobID string, want int) ([]Instance, bool, error) {
	allocs, err := a.Allocations(ctx, jobID)
	if err != nil {
		return nil, false, err
	}
	var running []PlacedAlloc
	for _, al := range allocs {
		switch al.ClientStatus {
		case "running":
			running = append(running, al)
		case "failed", "lost":
			return nil, false, fmt.Errorf("%w: allocation %s (%s) is %s", errInstanceFailed, al.ID, al.Name, al.ClientStatus)
		}
	}
	if len(running) < want {
		return nil, false, nil
	}
	out := make([]Instance, 0, len(running))
	for _, al := range running {
		addr, err := a.HTTPAddr(ctx, al.ID, httpPort)
		if err != nil {
			return nil, false, err
		}
		out = append(out, Instance{Alloc: al.ID, Name: al.Name, Addr: addr})
	}
	return out, true, nil
}
