package cluster

import (
	"context"
	"net/http"
	"net/url"
)

// Node is the part of a node the bench and the fault scenarios read.
type Node struct {
	ID         string
	Name       string
	Status     string
	Drain      bool
	Attributes map[string]string
	Drivers    map[string]*DriverInfo
	// ModifyIndex grows with every change the servers make to the node,
	// such as an agent registering it again on its start.
	ModifyIndex uint64
	// NodeResources and ReservedResources give the node's allocatable CPU
	// (FreeCPU).
	NodeResources *struct {
		Cpu struct{ CpuShares int64 }
	}
	ReservedResources *struct {
		Cpu struct{ CpuShares int64 }
	}
}

// Node returns the servers' view of the node with the given ID.
func (c *Client) Node(ctx context.Context, id string) (*Node, error) {
	var n Node
	if _, err := c.do(ctx, http.MethodGet, "/v1/node/"+url.PathEscape(id), nil, &n); err != nil {
		return nil, err
	}
	return &n, nil
}
