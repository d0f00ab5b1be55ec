package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// buildMeta is recorded next to each built binary; a binary is reused when
// its meta equals the one a build would record.
type buildMeta struct {
	Commit   string            `json:"commit"`
	Metadata string            `json:"metadata,omitempty"`
	Version  string            `json:"version,omitempty"`
	Nested   map[string]string `json:"nested,omitempty"`
	// Build is the build profile's flags and toolchain (build.Test.ID).
	Build string `json:"build,omitempty"`
}

func (m buildMeta) equal(o buildMeta) bool {
	if m.Commit != o.Commit || m.Metadata != o.Metadata || m.Version != o.Version || m.Build != o.Build || len(m.Nested) != len(o.Nested) {
		return false
	}
	for k, v := range m.Nested {
		if o.Nested[k] != v {
			return false
		}
	}
	return true
}

func (b *Builder) binPath(label string) string {
	return filepath.Join(b.Dir, "bin", label, "nomad")
}

func (b *Builder) loadMeta(label string) (buildMeta, bool) {
	var m buildMeta
	if _, err := os.Stat(b.binPath(label)); err != nil {
		return m, false
	}
	data, err := os.ReadFile(b.binPath(label) + ".json")
	if err != nil || json.Unmarshal(data, &m) != nil {
		return m, false
	}
	return m, true
}

func (b *Builder) saveMeta(label string, m buildMeta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(b.binPath(label)+".json", append(data, '\n'), 0o644)
}
