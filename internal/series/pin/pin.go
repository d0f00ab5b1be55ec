// Package pin reads and writes the pin file: the upstream module version the
// patch series applies to, and the checksums that verify it.
package pin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"

	"golang.org/x/mod/module"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
)

// DefaultFile is the pin file's name at the top of the repository.
const DefaultFile = "upstream.json"

// Module is one Go module of the upstream tree.
type Module struct {
	// Path is the module path, such as github.com/hashicorp/nomad.
	Path string `json:"path"`
	// Version is an exact version the Go module proxy serves.
	Version string `json:"version"`
	// Sum is the module's h1: checksum, as go.sum records it.
	Sum string `json:"sum"`
	// Dir is where the module is placed in the work tree, relative to its
	// top; empty for the main module.
	Dir string `json:"dir,omitempty"`
	// GoSum are go.sum lines a nested module's requirements need that the
	// main module's go.sum lacks (the nested module requires a newer
	// version of a module than the main module does), as the checksum
	// database vouches for them. The imported upstream commit's go.sum
	// holds them; without them the tree does not build with -mod=readonly.
	GoSum []string `json:"go_sum,omitempty"`
}

// String returns path@version.
func (m Module) String() string { return m.Path + "@" + m.Version }

// Pin is the content of the pin file.
type Pin struct {
	// Module is the upstream module the work tree is made of.
	Module Module `json:"module"`
	// Nested are modules that the upstream repository holds in
	// subdirectories and its go.mod replaces with local paths, but which the
	// main module's zip omits (for Nomad, api/).
	Nested []Module `json:"nested,omitempty"`
}

// Modules returns the main module followed by the nested ones.
func (p *Pin) Modules() []Module {
	return append([]Module{p.Module}, p.Nested...)
}

// Version returns the upstream version, such as v1.5.3.
func (p *Pin) Version() string { return p.Module.Version }

// Validate reports the first problem with the pin.
func (p *Pin) Validate() error {
	if p.Module.Dir != "" {
		return fmt.Errorf("module %s: the main module has no dir", p.Module)
	}
	seen := map[string]bool{}
	for i, m := range p.Modules() {
		if err := module.Check(m.Path, m.Version); err != nil {
			return fmt.Errorf("module %q: %w", m.String(), err)
		}
		if !strings.HasPrefix(m.Sum, "h1:") {
			return fmt.Errorf("module %s: sum %q is not an h1: checksum", m, m.Sum)
		}
		if i == 0 {
			continue
		}
		if m.Dir == "" || path.Clean(m.Dir) != m.Dir || path.IsAbs(m.Dir) || m.Dir == "." || strings.HasPrefix(m.Dir, "../") || m.Dir == ".." {
			return fmt.Errorf("nested module %s: dir %q must be a clean relative path inside the work tree", m, m.Dir)
		}
		if seen[m.Dir] {
			return fmt.Errorf("nested module %s: dir %q is used twice", m, m.Dir)
		}
		seen[m.Dir] = true
	}
	return nil
}

// Load reads and validates a pin file.
func Load(file string) (*Pin, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading pin: %w", err)
	}
	var p Pin
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("parsing pin %s: %w", file, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("pin %s: %w", file, err)
	}
	return &p, nil
}

// Marshal returns the canonical encoding of the pin.
func (p *Pin) Marshal() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Save writes the pin atomically.
func (p *Pin) Save(file string) error {
	data, err := p.Marshal()
	if err != nil {
		return fmt.Errorf("saving pin: %w", err)
	}
	return atomicfile.WriteFile(file, data, 0o644)
}
