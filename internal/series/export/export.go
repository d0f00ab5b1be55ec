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
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
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

// Export applies patches onto base in a scratch work tree of repo at
// scratch (a directory the tool owns: it is replaced), rewrites each
// commit for upstream and writes the mbox to dir/series.mbox. In dir it
// writes only the mboxes, never a scratch tree: dir is the user's.
func Export(ctx context.Context, repo *git.Repo, base string, patches []series.Patch, dir, scratch string, log io.Writer) (*Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w; give -o a directory you can write", err)
	}
	wt, cleanup, err := repo.Scratch(ctx, scratch, base)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res := &Result{Mbox: filepath.Join(abs, "series.mbox")}
	for _, p := range patches {
		cl, err := exportOne(ctx, wt, p)
		if err != nil {
			return nil, err
		}
		res.Changelogs = append(res.Changelogs, cl)
		fmt.Fprintf(log, "exported %s with %s\n", p.Name, cl)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	if err := writeMbox(ctx, wt, base, res.Mbox); err != nil {
		return nil, err
	}
	if res.PRs, err = prs(ctx, repo, wt, base, patches, abs, log); err != nil {
		return nil, err
	}
	for _, pr := range res.PRs {
		res.Branches = append(res.Branches, pr.Branch)
	}
	if err := removeStale(ctx, repo, res.Branches, log); err != nil {
		return nil, err
	}
	return res, nil
}

// writeMbox writes the commits of wt since base to file as an mbox for
// `git am`.
func writeMbox(ctx context.Context, wt *git.Repo, base, file string) error {
	args := append(append([]string{}, series.FormatPatchArgs...), "--stdout", base+"..HEAD")
	mbox, err := wt.Run(ctx, args...)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(file, []byte(mbox), 0o644)
}

// removeStale deletes the export branches of patches no longer in the
// series, so that the branches always mirror the series.
func removeStale(ctx context.Context, repo *git.Repo, keep []string, log io.Writer) error {
	have, err := repo.Lines(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads/"+BranchPrefix)
	if err != nil {
		return err
	}
	wanted := map[string]bool{}
	for _, b := range keep {
		wanted[b] = true
	}
	for _, b := range have {
		if wanted[b] {
			continue
		}
		if _, err := repo.Run(ctx, "branch", "--quiet", "--delete", "--force", b); err != nil {
			return err
		}
		fmt.Fprintf(log, "removed branch %s (no longer in the series)\n", b)
	}
	return nil
}

var prRE = regexp.MustCompile(`/pull/([0-9]+)`)

// exportOne applies p and amends the commit: .changelog entry added, fork
// trailers removed. It returns the changelog file's path.
func exportOne(ctx context.Context, wt *git.Repo, p series.Patch) (string, error) {
	md, err := p.Metadata()
	if err != nil {
		return "", err
	}
	if err := wt.Am(ctx, p.Path, false); err != nil {
		_ = wt.AmAbort(context.WithoutCancel(ctx))
		return "", hint.Errorf("%s does not apply to the base: %w (run %s)", p.Name, err, hint.Run("check"))
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
// holds only the upstream commit, then, withBuild, builds it with
// `go build -trimpath ./...`.
func Verify(ctx context.Context, repo *git.Repo, base, mbox, dir string, withBuild bool, log io.Writer) error {
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
	// The tree is a full upstream checkout: never leave it behind.
	defer os.RemoveAll(abs)
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
	if !withBuild {
		return nil
	}
	// -trimpath keeps the fresh tree's directory out of the build cache's
	// keys: the packages a PR leaves alone are not compiled again per PR.
	if _, err := (gocmd.Cmd{Dir: abs, Env: build.GoEnv()}).CombinedOutput(ctx, "build", "-trimpath", "./..."); err != nil {
		return fmt.Errorf("the exported tree does not build: %w", err)
	}
	fmt.Fprintf(log, "the exported tree builds (go build -trimpath ./...)\n")
	return nil
}
