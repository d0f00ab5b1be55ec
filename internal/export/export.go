// Package export turns the series into what upstream reviews: commits with
// upstream-ready messages, each carrying its .changelog entry in Nomad's
// format, as one branch and one mbox for `git am` per pull request (a patch
// and its declared dependencies, pr.go), and the whole series as one mbox.
package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/metadata"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// BranchPrefix prefixes the per-patch branches in the work tree.
const BranchPrefix = "export/"

// forkTrailers are fork bookkeeping that upstream does not want; Depends-On
// and Changes-Test name the fork's patch numbers and its test bookkeeping
// (the commit message body explains a changed test to reviewers).
var forkTrailers = map[string]bool{"upstream-status": true, "origin": true, "release-note": true, "depends-on": true, "changes-test": true}

// Result says what Export wrote.
type Result struct {
	// Mbox holds the whole series, stacked.
	Mbox string
	// PRs are the per-PR branches and mboxes: each patch with its
	// declared dependencies.
	PRs      []PR
	Branches []string
	// Changelogs are the .changelog files added, one per patch.
	Changelogs []string
}

// Export applies patches onto base in a scratch work tree of repo, rewrites
// each commit for upstream and writes the mbox to dir/series.mbox.
func Export(ctx context.Context, repo *git.Repo, base string, patches []series.Patch, dir string, log io.Writer) (*Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	scratch := filepath.Join(abs, "tree")
	_ = os.RemoveAll(scratch)
	if _, err := repo.Run(ctx, "worktree", "prune"); err != nil {
		return nil, err
	}
	if _, err := repo.Run(ctx, "worktree", "add", "--quiet", "--detach", "--force", scratch, base); err != nil {
		return nil, err
	}
	defer repo.Run(context.Background(), "worktree", "remove", "--force", scratch)
	wt := &git.Repo{Dir: scratch}
	res := &Result{Mbox: filepath.Join(abs, "series.mbox")}
	for _, p := range patches {
		cl, err := exportOne(ctx, wt, p)
		if err != nil {
			return nil, err
		}
		res.Changelogs = append(res.Changelogs, cl)
		fmt.Fprintf(log, "exported %s with %s\n", p.Name, cl)
	}
	args := append(append([]string{}, series.FormatPatchArgs...), "--stdout", base+"..HEAD")
	mbox, err := wt.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(res.Mbox, []byte(mbox), 0o644); err != nil {
		return nil, err
	}
	if res.PRs, err = prs(ctx, repo, wt, base, patches, abs, log); err != nil {
		return nil, err
	}
	for _, pr := range res.PRs {
		res.Branches = append(res.Branches, pr.Branch)
	}
	return res, nil
}

var prRE = regexp.MustCompile(`/pull/([0-9]+)`)

// exportOne applies p and amends the commit: .changelog entry added, fork
// trailers removed. It returns the changelog file's path.
func exportOne(ctx context.Context, wt *git.Repo, p series.Patch) (string, error) {
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return "", err
	}
	md, err := metadata.Parse(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name, err)
	}
	if out, err := wt.Command(ctx, "am", "--keep-cr", "--committer-date-is-author-date", "--quiet", p.Path).CombinedOutput(); err != nil {
		_, _ = wt.Run(ctx, "am", "--abort")
		return "", fmt.Errorf("%s does not apply to the base: %s (run `nomadfork check`)", p.Name, strings.TrimSpace(string(out)))
	}
	kind, err := md.ReleaseNote()
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name, err)
	}
	id := fmt.Sprintf("fork-%04d", p.Number)
	if st, err := md.Status(); err == nil && st.State == "submitted" {
		if m := prRE.FindStringSubmatch(st.Arg); m != nil {
			id = m[1]
		}
	}
	cl := filepath.ToSlash(filepath.Join(".changelog", id+".txt"))
	entry := fmt.Sprintf("```release-note:%s\n%s\n```\n", kind, md.Subject)
	if err := os.MkdirAll(filepath.Join(wt.Dir, ".changelog"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(wt.Dir, filepath.FromSlash(cl)), []byte(entry), 0o644); err != nil {
		return "", err
	}
	if _, err := wt.Run(ctx, "add", "--", cl); err != nil {
		return "", err
	}
	msg := md.Subject + "\n\n" + md.Body + "\n"
	var kept []string
	for _, t := range md.Trailers {
		if !forkTrailers[strings.ToLower(t.Key)] {
			kept = append(kept, t.Key+": "+t.Value)
		}
	}
	if len(kept) > 0 {
		msg += "\n" + strings.Join(kept, "\n") + "\n"
	}
	date, err := wt.Line(ctx, "show", "--no-patch", "--format=%aI", "HEAD")
	if err != nil {
		return "", err
	}
	cmd := wt.Command(ctx, "commit", "--quiet", "--amend", "--no-verify", "-F", "-")
	cmd.Env = append(cmd.Env, "GIT_COMMITTER_DATE="+date)
	cmd.Stdin = strings.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rewriting %s for upstream: %v: %s", p.Name, err, out)
	}
	return cl, nil
}

// Verify applies the mbox with plain `git am` onto a fresh repository that
// holds only the upstream commit, then builds it with `go build ./...`.
func Verify(ctx context.Context, repo *git.Repo, base, mbox, dir string, log io.Writer) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(abs); err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	fresh := &git.Repo{Dir: abs}
	steps := [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"fetch", "--quiet", "--no-tags", repo.Dir, base},
		{"checkout", "--quiet", "FETCH_HEAD"},
		{"am", "--quiet", mbox},
	}
	for _, s := range steps {
		if _, err := fresh.Run(ctx, s...); err != nil {
			return fmt.Errorf("applying the mbox to a fresh upstream tree: %w", err)
		}
	}
	fmt.Fprintf(log, "the mbox applies with plain `git am` onto upstream in %s\n", abs)
	cmd := exec.CommandContext(ctx, "go", "build", "./...")
	cmd.Dir = abs
	cmd.Env = build.GoEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the exported tree does not build: %v\n%s", err, out)
	}
	fmt.Fprintf(log, "the exported tree builds (go build ./...)\n")
	return nil
}
