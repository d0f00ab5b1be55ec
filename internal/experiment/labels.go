package experiment

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// DefaultLabels are the labels an experiment runs without -versions: the
// pinned version base, the fork and the reference version, each once (on
// the line pinned at the reference version, base is the reference).
func DefaultLabels(base string) []string {
	labels := []string{base, ForkLabel}
	if RefVersion != base {
		labels = append(labels, RefVersion)
	}
	return labels
}

// ParseLabels parses a comma-separated list of binary labels: the pinned
// version base (unpatched), the fork, or another upstream version. A label
// given twice is refused.
func ParseLabels(list, base string) ([]string, error) {
	var labels []string
	for _, l := range strings.Split(list, ",") {
		l = strings.TrimSpace(l)
		if l != base && l != ForkLabel && !semver.IsValid(l) {
			return nil, fmt.Errorf("unknown label %q (want %s, %s or an upstream version such as %s)", l, base, ForkLabel, RefVersion)
		}
		for _, seen := range labels {
			if seen == l {
				return nil, fmt.Errorf("%s given twice", l)
			}
		}
		labels = append(labels, l)
	}
	return labels, nil
}

// Variant is a binary (or a work tree) given with -variant name=path.
type Variant struct{ Name, Path string }

// VariantFlag collects -variant name=path.
type VariantFlag []Variant

func (v *VariantFlag) String() string { return "" }

// Set adds a variant.
func (v *VariantFlag) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want name=/path/to/nomad, got %q", s)
	}
	*v = append(*v, Variant{name, path})
	return nil
}

// ErrNothingToRun is ResolveLabels' error when no label and no variant is
// left.
var ErrNothingToRun = errors.New("nothing to run")

// ResolveLabels is every experiment's label resolution, done once: the
// labels of versions (a -versions list; "" is defaults, and defaults nil
// is DefaultLabels(base)), each once, then the variants, whose names must
// be new and distinct.
func ResolveLabels(versions, base string, defaults []string, variants []Variant) ([]string, error) {
	labels := defaults
	if labels == nil {
		labels = DefaultLabels(base)
	}
	if versions != "" {
		var err error
		if labels, err = ParseLabels(versions, base); err != nil {
			return nil, fmt.Errorf("-versions: %w; other binaries go in -variant", err)
		}
	}
	if err := CheckVariants(labels, variants); err != nil {
		return nil, err
	}
	if len(labels)+len(variants) == 0 {
		return nil, ErrNothingToRun
	}
	return labels, nil
}

// CheckVariants refuses a variant whose name is one of labels or another
// variant's.
func CheckVariants(labels []string, variants []Variant) error {
	taken := map[string]bool{}
	for _, l := range labels {
		taken[l] = true
	}
	for _, v := range variants {
		if taken[v.Name] {
			return fmt.Errorf("-variant %s: the label is taken", v.Name)
		}
		taken[v.Name] = true
	}
	return nil
}
