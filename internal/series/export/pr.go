package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// PR is what one upstream pull request holds: a patch and the patches it
// declares with Depends-On (transitively, in series order), not the whole
// prefix of the series.
type PR struct {
	Patch series.Patch
	// Deps are the patches applied before it.
	Deps []series.Patch
	// Branch is the branch in the work tree's repository.
	Branch string
	// Mbox is the file for `git am`.
	Mbox string
}

// Commits returns how many commits the PR holds.
func (pr PR) Commits() int { return len(pr.Deps) + 1 }

// prs writes, for every patch, a branch export/NNNN-subject and an mbox
// dir/NNNN-subject.mbox holding exactly the patch and its dependencies,
// each rewritten for upstream like the series.
func prs(ctx context.Context, repo, wt *git.Repo, base string, patches []series.Patch, dir string, log io.Writer) ([]PR, error) {
	nodes, err := series.Graph(patches)
	if err != nil {
		return nil, err
	}
	var out []PR
	for _, n := range nodes {
		if _, err := wt.Run(ctx, "checkout", "--quiet", "--detach", base); err != nil {
			return nil, err
		}
		all := n.WithDeps(nodes)
		pr := PR{Patch: n.Patch, Deps: all[:len(all)-1]}
		for _, p := range all {
			if _, err := exportOne(ctx, wt, p); err != nil {
				return nil, fmt.Errorf("exporting %s with its dependencies: %w", n.Patch.Name, err)
			}
		}
		name := strings.TrimSuffix(n.Patch.Name, ".patch")
		pr.Branch = BranchPrefix + name
		head, err := wt.Line(ctx, "rev-parse", "HEAD")
		if err != nil {
			return nil, err
		}
		if _, err := repo.Run(ctx, "branch", "--force", pr.Branch, head); err != nil {
			return nil, err
		}
		pr.Mbox = filepath.Join(dir, name+".mbox")
		if err := writeMbox(ctx, wt, base, pr.Mbox); err != nil {
			return nil, err
		}
		var with []string
		for _, d := range pr.Deps {
			with = append(with, d.Name)
		}
		what := "alone"
		if len(with) > 0 {
			what = "with its dependencies " + strings.Join(with, ", ")
		}
		fmt.Fprintf(log, "PR %s: branch %s, %s (%s)\n", n.Patch.Name, pr.Branch, pr.Mbox, what)
		out = append(out, pr)
	}
	return out, nil
}

// VerifyPRs applies every PR's mbox with plain `git am` onto a fresh
// repository holding only the upstream commit, and with build builds it.
func VerifyPRs(ctx context.Context, repo *git.Repo, base string, prs []PR, dir string, build bool, log io.Writer) error {
	for _, pr := range prs {
		sub := filepath.Join(dir, strings.TrimSuffix(pr.Patch.Name, ".patch"))
		fmt.Fprintf(log, "==> PR %s (%d commit(s)) on a fresh upstream tree\n", pr.Patch.Name, pr.Commits())
		if err := Verify(ctx, repo, base, pr.Mbox, sub, build, log); err != nil {
			return fmt.Errorf("PR %s: %w", pr.Patch.Name, err)
		}
		if err := os.RemoveAll(sub); err != nil {
			return err
		}
	}
	return nil
}
