// Package rebase moves the patch series onto a newer upstream version,
// drops patches upstream already carries, and reports ahead of time how the
// series fares against other versions.
package rebase

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
)

// Outcome kinds, one per patch and target.
const (
	// Clean: the patch applies without merging (possibly at an offset).
	Clean = "applies"
	// ThreeWay: the patch applies by three-way merge.
	ThreeWay = "3-way"
	// Upstream: the target already carries the patch; it is dropped.
	Upstream = "upstream"
	// Conflict: the patch does not apply; Files lists the conflicts.
	Conflict = "conflict"
	// Resolved: the patch conflicted and was resolved by hand.
	Resolved = "resolved"
)

// Outcome is what happened to one patch.
type Outcome struct {
	Patch  string   `json:"patch"`
	Kind   string   `json:"kind"`
	Detail string   `json:"detail,omitempty"`
	Files  []string `json:"files,omitempty"`
	Hunks  []string `json:"hunks,omitempty"`
}

// Cell renders the outcome for a table.
func (o Outcome) Cell() string {
	switch o.Kind {
	case Conflict:
		return "conflict (" + strings.Join(o.Files, ", ") + ")"
	case Upstream:
		return "already upstream"
	}
	return o.Kind
}

var patchFailedRE = regexp.MustCompile(`(?m)^error: patch failed: (.+:[0-9]+)$`)

// Try applies patch p on top of wt's HEAD as one commit, for an upstream at
// version target. It drops the patch (leaving HEAD alone) when its
// Upstream-Status says target carries it, or when it reverse-applies to
// the tree, which means the tree already holds the change. On conflict it
// leaves the `git am` session stopped for the caller to resolve or abort.
func Try(ctx context.Context, wt *git.Repo, p series.Patch, target string) (Outcome, error) {
	out := Outcome{Patch: p.Name}
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return out, err
	}
	md, err := metadata.Parse(data)
	if err != nil {
		return out, fmt.Errorf("%s: %w", p.Name, err)
	}
	if st, err := md.Status(); err == nil && st.State == "applied" && semver.Compare(st.Arg, target) <= 0 {
		out.Kind, out.Detail = Upstream, fmt.Sprintf("Upstream-Status: applied %s", st.Arg)
		return out, nil
	}
	if _, err := wt.Run(ctx, "apply", "--check", "--reverse", p.Path); err == nil {
		out.Kind, out.Detail = Upstream, "the target already holds its change (it reverse-applies)"
		return out, nil
	}
	exact := true
	if _, err := wt.Run(ctx, "apply", "--check", p.Path); err != nil {
		exact = false
	}
	args := []string{"am", "--keep-cr", "--committer-date-is-author-date", "--quiet"}
	if !exact {
		args = append(args, "--3way")
	}
	cmd := wt.Command(ctx, append(args, p.Path)...)
	output, err := cmd.CombinedOutput()
	if err == nil {
		out.Kind = Clean
		if !exact {
			out.Kind = ThreeWay
		}
		return out, nil
	}
	text := string(output)
	if strings.Contains(text, "No changes") || strings.Contains(text, "already applied") {
		if _, err := wt.Run(ctx, "am", "--skip"); err != nil {
			return out, err
		}
		out.Kind, out.Detail = Upstream, "the target already holds its change (the merge is empty)"
		return out, nil
	}
	out.Kind = Conflict
	files := map[string]bool{}
	unmerged, err := wt.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return out, err
	}
	for _, f := range unmerged {
		files[f] = true
	}
	for _, m := range patchFailedRE.FindAllStringSubmatch(text, -1) {
		out.Hunks = append(out.Hunks, m[1])
		files[m[1][:strings.LastIndex(m[1], ":")]] = true
	}
	for f := range files {
		out.Files = append(out.Files, f)
	}
	sort.Strings(out.Files)
	out.Detail = strings.TrimSpace(text)
	return out, nil
}
