package cluster

// StartAgent starts a nomad agent of spec on spec.Host, a host AddHost
// added, outside the cluster's layout: an agent of another cluster on the
// same bridge (such as a placement cluster that runs node simulators
// against this one). The cluster stops it with its clients, and
// CheckAlive fails if it exits.
func (c *Cluster) StartAgent(spec AgentSpec, nomad string) (*Agent, error) {
	a := &Agent{Spec: spec, API: NewClient(spec.HTTPAddr())}
	if err := a.start(nomad); err != nil {
		return nil, err
	}
	c.Clients = append(c.Clients, a)
	return a, nil
}
