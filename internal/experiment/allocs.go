package experiment

import (
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// Unconverged says why a job's allocations are not at rest at version,
// "" when they are: count allocations of the version to run, all running
// and healthy; no allocation pending or unknown; none the servers stop
// that still runs.
func Unconverged(allocs []cluster.AllocStub, count int, version uint64) string {
	healthy := 0
	for _, a := range allocs {
		switch {
		case a.ClientStatus == ClientPending || a.ClientStatus == ClientUnknown:
			return fmt.Sprintf("allocation %s is %s", ShortID(a.ID), a.ClientStatus)
		case a.DesiredStatus != "run" && a.ClientStatus == ClientRunning:
			return fmt.Sprintf("allocation %s is to %s but still running", ShortID(a.ID), a.DesiredStatus)
		case a.DesiredStatus == "run" && a.JobVersion == version && a.ClientStatus == ClientRunning &&
			a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy:
			healthy++
		}
	}
	if healthy != count {
		return fmt.Sprintf("%d of %d allocations of version %d running and healthy", healthy, count, version)
	}
	return ""
}

// Health names an allocation's deployment health: "unset" while nil,
// else "healthy" or "unhealthy".
func Health(h *bool) string {
	switch {
	case h == nil:
		return "unset"
	case *h:
		return "healthy"
	}
	return "unhealthy"
}

// ShortID is an allocation's or node's ID as Nomad's CLI shows it: its
// first 8 characters.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
