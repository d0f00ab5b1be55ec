package release

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Sums returns SHA256SUMS of the named files in dir, in sha256sum's
// format ("<hex>  <name>"), sorted by name: `sha256sum -c SHA256SUMS`
// checks them.
func Sums(dir string, names []string) (string, error) {
	sorted := slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, n := range sorted {
		sum, err := fileSum(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return b.String(), nil
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff compares two SHA256SUMS contents and returns one line per file
// whose sum differs or that only one of them has; none when they match.
func Diff(a, b string) []string {
	pa, pb := parseSums(a), parseSums(b)
	var names []string
	for n := range pa {
		names = append(names, n)
	}
	for n := range pb {
		if _, ok := pa[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var diffs []string
	for _, n := range names {
		sa, oka := pa[n]
		sb, okb := pb[n]
		switch {
		case !oka:
			diffs = append(diffs, fmt.Sprintf("%s: only in the rebuild", n))
		case !okb:
			diffs = append(diffs, fmt.Sprintf("%s: missing from the rebuild", n))
		case sa != sb:
			diffs = append(diffs, fmt.Sprintf("%s: %s, rebuilt %s", n, sa, sb))
		}
	}
	return diffs
}

func parseSums(s string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if ok {
			m[name] = sum
		}
	}
	return m
}
