package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// FormatGraph renders the graph, one line per patch.
func FormatGraph(nodes []series.Node) string {
	var b strings.Builder
	b.WriteString("dependency graph (Depends-On, transitive):\n")
	for _, n := range nodes {
		what := "standalone: base only"
		if len(n.Deps) > 0 {
			what = "base + " + strings.Join(series.Numbers(n.Deps), " + ")
			if len(n.Declared) != len(n.Deps) {
				what += " (declared " + strings.Join(series.Numbers(n.Declared), ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "    %s  %s\n", n.Patch.Name, what)
	}
	return b.String()
}

// SeriesMetadata lints what depends on a patch's place in the series:
// Depends-On names an earlier patch, and `Upstream-Status: applied <v>` a
// version above the pinned one.
func SeriesMetadata(patches []series.Patch, pinned string) Problems {
	var probs Problems
	for _, p := range patches {
		md, err := p.Metadata()
		if err != nil {
			continue // Metadata reports it
		}
		for _, e := range md.LintInSeries(p.Number, len(patches), pinned) {
			probs = append(probs, hint.Sprintf("%s: %v", p.Name, e))
		}
	}
	return probs
}

// checkGraph applies every patch whose dependencies are not simply every
// earlier patch to the base plus exactly its dependencies, in series
// order, with plain `git am` (no three-way merge: an offset is expected,
// since the patch sits elsewhere in the series, fuzz is not), and with
// build set compiles the tree (without linking) and type-checks the
// patch's packages with their tests. A patch that fails there needs a patch it does not declare.
func checkGraph(ctx context.Context, wt *git.Repo, base string, nodes []series.Node, build bool, log io.Writer) (Problems, error) {
	var probs Problems
	for _, n := range nodes {
		if n.Prefix() {
			if n.Patch.Number > 1 || build {
				fmt.Fprintf(log, "ok   %s on base + its dependencies = prefix 1..%d (checked above)\n", n.Patch.Name, n.Patch.Number)
			}
			continue
		}
		on := n.On()
		failed, err := series.ApplyOn(ctx, wt, base, n.WithDeps(nodes))
		var am *git.AmError
		switch {
		case failed == nil && err != nil:
			return nil, err
		case failed != nil && !errors.As(err, &am):
			return nil, err
		case failed != nil && failed.Number != n.Patch.Number:
			probs = append(probs, hint.Sprintf("%s: cannot be checked on %s: its dependency %s does not apply there: %s", n.Patch.Name, on, failed.Name, oneLine(git.GitMessage(am.Output))))
			continue
		case failed != nil:
			probs = append(probs, hint.Sprintf("%s: does not apply on %s (git am, no 3-way): %s%s", n.Patch.Name, on, oneLine(git.GitMessage(am.Output)), missingHint(n, nodes, "")))
			continue
		}
		if !build {
			fmt.Fprintf(log, "ok   %s applies on %s\n", n.Patch.Name, on)
			continue
		}
		commit, err := wt.Line(ctx, "rev-parse", "HEAD")
		if err != nil {
			return nil, err
		}
		pkgs, err := worktree.ChangedPackages(ctx, wt, commit+"^", commit)
		if err != nil {
			return nil, err
		}
		var failure string
		err = progress.Step(log, fmt.Sprintf("compiling %s on %s: go list -export ./..., go vet %s", n.Patch.Name, on, strings.Join(pkgs, " ")), func() error {
			if err := compile(ctx, wt.Dir, log); err != nil {
				failure = fmt.Sprintf("does not build on %s: %v", on, oneLine(err.Error()))
				return nil
			}
			if len(pkgs) == 0 {
				return nil
			}
			findings, err := vet(ctx, wt.Dir, pkgs)
			if err != nil {
				return err
			}
			var typeErrs []string
			for f := range findings {
				if strings.HasPrefix(f, "vet: ") {
					typeErrs = append(typeErrs, strings.TrimPrefix(f, "vet: "))
				}
			}
			sort.Strings(typeErrs)
			if len(typeErrs) > 0 {
				failure = fmt.Sprintf("its packages or their tests do not compile on %s: %s", on, oneLine(strings.Join(typeErrs, "; ")))
			}
			return nil
		})
		if ctx.Err() != nil {
			// An interruption is not the patch's fault.
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		if failure != "" {
			probs = append(probs, hint.Sprintf("%s: %s%s", n.Patch.Name, failure, missingHint(n, nodes, failure)))
		}
	}
	return probs, nil
}

// missingHint names the earlier patches the node does not depend on that
// most likely hold what it needs: those that add a name the failure says
// is undefined, else those changing the same files, else the same package
// directories.
func missingHint(n series.Node, nodes []series.Node, failure string) string {
	have := map[int]bool{}
	for _, d := range n.Deps {
		have[d] = true
	}
	files, dirs := map[string]bool{}, map[string]bool{}
	for _, f := range n.Files {
		files[f] = true
		dirs[path.Dir(f)] = true
	}
	type cand struct {
		name   string
		number int
		shared []string
	}
	var byFile, byDir []cand
	for _, m := range nodes[:n.Patch.Number-1] {
		if have[m.Patch.Number] {
			continue
		}
		var sf, sd []string
		for _, f := range m.Files {
			if files[f] {
				sf = append(sf, f)
			} else if dirs[path.Dir(f)] {
				sd = append(sd, path.Dir(f)+"/")
			}
		}
		if len(sf) > 0 {
			byFile = append(byFile, cand{m.Patch.Name, m.Patch.Number, sf})
		} else if len(sd) > 0 {
			byDir = append(byDir, cand{m.Patch.Name, m.Patch.Number, dedupe(sd)})
		}
	}
	cands, what := byFile, "also changes"
	if names := undefinedNames(failure); len(names) > 0 {
		var byName []cand
		for _, m := range nodes[:n.Patch.Number-1] {
			if have[m.Patch.Number] {
				continue
			}
			if added := addedNames(m.Patch.Data, names); len(added) > 0 {
				byName = append(byName, cand{m.Patch.Name, m.Patch.Number, added})
			}
		}
		if len(byName) > 0 {
			cands, what = byName, "adds"
		}
	}
	if len(cands) == 0 {
		cands, what = byDir, "also changes files in"
	}
	if len(cands) == 0 {
		return "; no earlier patch it does not declare shares its files: check what it needs"
	}
	var parts []string
	for _, c := range cands {
		parts = append(parts, fmt.Sprintf("%s, which %s %s", c.name, what, strings.Join(c.shared, ", ")))
	}
	return fmt.Sprintf("; an undeclared dependency: it likely needs %s (add `Depends-On: %04d` or make it independent)",
		strings.Join(parts, "; or "), cands[len(cands)-1].number)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func graphResult(probs Problems, err error) error {
	if err != nil {
		return err
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}

var undefinedRE = regexp.MustCompile(`undefined: (?:[A-Za-z_][A-Za-z0-9_]*\.)?([A-Za-z_][A-Za-z0-9_]*)|has no field or method ([A-Za-z_][A-Za-z0-9_]*)`)

// undefinedNames returns the identifiers a compiler error says are missing.
func undefinedNames(failure string) []string {
	var names []string
	for _, m := range undefinedRE.FindAllStringSubmatch(failure, -1) {
		names = append(names, m[1]+m[2])
	}
	return dedupe(names)
}

// addedNames returns those of names that the patch file data declares in
// an added line (func, method, type, var or const).
func addedNames(data []byte, names []string) []string {
	var found []string
	for _, name := range names {
		re := regexp.MustCompile(`(?m)^\+\s*(func (\([^)]*\) )?|type |var |const |)` + regexp.QuoteMeta(name) + `\b`)
		if re.Match(data) {
			found = append(found, name)
		}
	}
	return found
}
