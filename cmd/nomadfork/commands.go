package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

const (
	helpApply = `Downloads and verifies the pinned upstream, makes nomad/ hold it as branch
upstream and applies patches/ on branch fork, one commit per patch. Commits
that already match patches/ are kept, so a second run does nothing and an
interrupted run resumes. It refuses to discard uncommitted changes,
unexported commits or a stopped apply or rebase; -force discards them (a
stopped rebase is aborted first). At a conflict it stops: resolve, git add,
then apply -continue, or apply -abort.`
	helpExtract = `Writes nomad/'s commits since the upstream base (branch fork, checked out)
back to patches/, byte-identically and only where bytes changed, in one
transaction. It refuses to overwrite a patch file changed since nomadfork
last wrote or applied it (apply first to keep the edit; -force discards
it). When the numbering changes it prints every rename and rewrites the
commits' Depends-On trailers to the new numbers (refusing when a patch
depends on one that left the series).`
	helpCheck = `Lints patch metadata, applies every patch exactly (no offset) in a scratch
tree, compares its re-export byte for byte, builds and vets every prefix of
the series, and applies (plain git am), builds and vets every patch on the
base plus exactly its Depends-On patches. It leaves nomad/'s files and
branches alone (it imports the pinned upstream into its repository).`
	helpBuild = `Builds bin/nomad from nomad/ like upstream's official release: -tags
ui,release (the web UI), CGO_ENABLED=1, -trimpath, with the pinned Go
toolchain through GOTOOLCHAIN (downloaded from the module proxy when
missing), stamped with the fork release from CHANGELOG.md and the work
tree's revision and commit time. -check-ui then starts a dev agent of it in
the sandbox and checks that /ui/ serves the web UI.`
)

func runApply(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "apply", "[-force | -continue | -abort] [-allow-empty]", helpApply)
	force := fs.Bool("force", false, "discard uncommitted changes, unexported commits and a stopped apply or rebase in nomad/")
	cont := fs.Bool("continue", false, "resume a stopped apply after resolving the conflicts and staging them with 'git add'")
	abort := fs.Bool("abort", false, "end a stopped apply, keeping the patches applied so far")
	allowEmpty := fs.Bool("allow-empty", false, "accept an empty or missing patches/ (nomad/ becomes bare upstream)")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if n := count(*force, *cont, *abort); n > 1 {
		return usageError{errors.New("-force, -continue and -abort exclude each other")}
	}
	t := e.tree
	if *abort {
		return t.Apply(ctx, "", nil, worktree.ApplyOptions{Abort: true})
	}
	if *force {
		if err := e.rebaser().AbortStopped(ctx); err != nil {
			return err
		}
	}
	patches, p, base, err := e.seriesAndBase(ctx, t, *allowEmpty)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, worktree.ApplyOptions{Force: *force, Continue: *cont}); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is upstream %s plus %d patch(es), HEAD %s\n", e.relWorkTree(), p.Version(), len(patches), head)
	return nil
}

func count(bs ...bool) (n int) {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func runExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "extract", "[-force]", helpExtract)
	force := fs.Bool("force", false, "overwrite patch files changed since nomadfork last wrote or applied them")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	changes, renum, err := t.Extract(ctx, e.patches, worktree.ExtractOptions{Force: *force, Txn: filepath.Join(e.root, line.PatchesDir)})
	if err != nil {
		return err
	}
	for _, c := range changes {
		name := filepath.Join(line.PatchesDir, e.line.Name, c.Name)
		if c.Action == "renamed" {
			name = filepath.Join(line.PatchesDir, e.line.Name, c.From) + " -> " + c.Name
		}
		fmt.Fprintf(e.stdout, "%-9s %s\n", c.Action, name)
	}
	if len(changes) == 0 {
		fmt.Fprintln(e.stdout, "the series is empty: nomad/ has no commits after the upstream base")
	}
	e.renumberNotes(renum)
	return nil
}

// renumberNotes says which commits extract matched to their old patch
// only by position, and warns about each Depends-On of a new commit that
// kept a number the renumbering gave to another patch.
func (e *env) renumberNotes(r *worktree.Renumbering) {
	if r == nil {
		return
	}
	dir := filepath.Join(line.PatchesDir, e.line.Name)
	for _, m := range r.ByPosition {
		fmt.Fprintf(e.stdout, "note: %s is taken for %s by its place in the series (its subject and diff both changed), so its Depends-On follow the renumbering\n",
			filepath.Join(dir, m.Patch), m.Was)
	}
	for _, k := range r.Kept {
		now := fmt.Sprintf("is now %04d", k.Now)
		if k.Now == 0 {
			now = "has left the series"
		}
		fmt.Fprintf(e.stderr, "nomadfork extract: warning: %s is new to the series and keeps `Depends-On: %04d` as written, but the series was renumbered: the old %04d (%s) %s; "+
			"if the commit means that patch, reword its Depends-On in %s (`git rebase -i upstream`, \"reword\") to the new number, then run `nomadfork extract%s`\n",
			filepath.Join(dir, k.Patch), k.Number, k.Number, k.Was, now, e.relWorkTree(), e.lineArg())
	}
}

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[-no-build] [-allow-empty] [-tests [-v]]", helpCheck)
	noBuild := fs.Bool("no-build", false, "skip building and vetting every prefix of the series and every patch on its dependencies")
	allowEmpty := fs.Bool("allow-empty", false, "accept an empty or missing patches/")
	tests := fs.Bool("tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	verbose := fs.Bool("v", false, "with -tests, print every test's output")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	patches, p, base, err := e.seriesAndBase(ctx, t, *allowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{
		Repo:    t.Repo,
		Base:    base,
		Scratch: filepath.Join(e.out, "check"),
		Build:   !*noBuild,
		Pinned:  p.Version(),
		Log:     e.stdout,
	})
	if err == nil && *tests {
		err = harness.OwnTests(ctx, e.harnessOptions(p, "check-tests", *verbose), base, patches)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func runBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", helpBuild)
	out := fs.String("o", filepath.Join(e.bin, "nomad"), "write the binary to `file`")
	checkUI := fs.Bool("check-ui", false, "then start a dev agent of the binary in the sandbox and check that /ui/ serves the web UI")
	tree := fs.String("tree", "", "build the nomad tree in `dir` (such as a bench variant's linked work tree, scripts/build-variant.sh) instead of the line's work tree")
	testProfile := fs.Bool("test", false, "build like the bench's binaries: the release flags without the release tag, which keeps upstream's mock_driver")
	metadata := fs.String("metadata", "", "the version metadata (such as fork.seed) instead of the fork release from CHANGELOG.md")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	repo := e.tree.Repo
	if *tree != "" {
		abs, err := filepath.Abs(*tree)
		if err != nil {
			return err
		}
		repo = &git.Repo{Dir: abs}
	} else if err := e.tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	meta := *metadata
	if meta == "" {
		if meta, err = build.ForkRelease(e.log, p.Version()); err != nil {
			return err
		}
	}
	profile := build.Release
	if *testProfile {
		profile = build.Test
	}
	stamp, err := build.StampOf(ctx, repo, meta)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("building %s (Nomad %s+%s, revision %s, %s build)", *out, p.Version(), meta, stamp.Revision, profile.Name)
	err = progress.Step(e.stdout, what, func() error {
		return profile.Build(ctx, repo.Dir, *out, stamp, build.Host())
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "built %s (%s); `nomadfork sandbox -- %s version` prints the version (run Nomad code only in the sandbox)\n", *out, profile.ID(), *out)
	if !*checkUI {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	err = progress.Step(e.stdout, "checking that "+*out+" serves the web UI at /ui/ (dev agent in the sandbox)", func() error {
		return release.CheckUI(ctx, self, abs, filepath.Join(e.out, "ui-check"))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "ui check: %s serves the web UI at /ui/\n", *out)
	return nil
}

func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(e.stderr, sandbox.Usage)
		if len(args) == 0 {
			return usageError{errors.New("no command given")}
		}
		return nil
	}
	err := sandbox.Run("", nil, args...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitCode(exit.ExitCode())
	}
	return err
}
