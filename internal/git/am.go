package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
)

// AmArgs are the flags of every `git am` the tool runs: carriage returns
// kept, quiet, and the committer date set to the author date so that the
// commit is a pure function of the patch file and its parent.
var AmArgs = []string{"am", "--keep-cr", "--committer-date-is-author-date", "--quiet"}

// AmError is returned when `git am` stops at a patch.
type AmError struct {
	// Output is what git printed.
	Output string
	// Files are the files with conflicts (unmerged index entries, which
	// includes files one side deleted) or rejected hunks.
	Files []string
	// Hunks locate the rejected hunks as path:line of the patch's
	// preimage.
	Hunks []string
	// Unmerged is set when the merge left unmerged files: a conflict for
	// the user to resolve. Otherwise the patch did not apply at all (it is
	// corrupt, or its context is not in the tree).
	Unmerged bool
}

func (e *AmError) Error() string {
	if e.DiskFull() {
		return "disk full (no space left on device): git am: " + GitMessage(e.Output)
	}
	return "git am: " + GitMessage(e.Output)
}

// DiskFull reports whether git am stopped for want of disk space.
func (e *AmError) DiskFull() bool {
	return strings.Contains(e.Output, "No space left on device") || strings.Contains(e.Output, "Out of diskspace")
}

// Is makes errors.Is(err, syscall.ENOSPC) true when git am stopped for
// want of disk space.
func (e *AmError) Is(target error) bool { return target == syscall.ENOSPC && e.DiskFull() }

// GitMessage returns git's error lines from output (the lines starting with
// error: or fatal:), or the whole trimmed output if there are none.
func GitMessage(output string) string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "fatal: ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) == 0 {
		return shorten(strings.TrimSpace(output), 12)
	}
	const max = 8
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("… and %d more errors", len(lines)-max))
	}
	return strings.Join(lines, "; ")
}

// Am applies the patch file at path as one commit on HEAD, with a three-way
// merge fallback if threeWay is set. When git stops, it returns an
// *AmError and leaves the `git am` session for the caller to continue or
// abort.
func (r *Repo) Am(ctx context.Context, path string, threeWay bool) error {
	args := append([]string{}, AmArgs...)
	if threeWay {
		args = append(args, "--3way")
	}
	args = append(args, path)
	before, err := r.ResolveCommit(ctx, "HEAD")
	if err != nil {
		return err
	}
	created, err := NewFiles(path)
	if err != nil {
		return err
	}
	return r.amStep(ctx, Undo{Restore: before, AbortAm: true, Clean: created}, args, func(out string) string {
		if data, err := os.ReadFile(path); err == nil {
			return InPatchFile(out, data)
		}
		return out
	})
}

// amStep runs the `git am` command args as a step with undo. When git
// stops, it returns the *AmError for git's output, rewritten by fix if fix
// is not nil; a cancelled context or an interruption is returned as is.
func (r *Repo) amStep(ctx context.Context, undo Undo, args []string, fix func(string) string) error {
	var out []byte
	err := r.step(ctx, undo, args, func() error {
		var err error
		out, err = r.Command(ctx, args...).CombinedOutput()
		return err
	})
	if err == nil {
		return nil
	}
	if ierr := Interruption(ctx, err); ierr != nil {
		return ierr
	}
	output := string(out)
	if fix != nil {
		output = fix(output)
	}
	return r.amError(ctx, output)
}

var corruptRE = regexp.MustCompile(`corrupt patch at line ([0-9]+)`)

// InPatchFile rewrites git's "corrupt patch at line N" in output, which
// counts the lines of the diff part of the mail `git am` split off (from
// its "---" line), to count the lines of the patch file data instead.
func InPatchFile(output string, data []byte) string {
	lines := strings.Split(string(data), "\n")
	start, body := 0, false
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if !body {
			body = l == ""
			continue
		}
		if l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "diff -") || strings.HasPrefix(l, "Index: ") {
			start = i
			break
		}
	}
	if start == 0 {
		return output
	}
	return corruptRE.ReplaceAllStringFunc(output, func(m string) string {
		var n int
		fmt.Sscan(corruptRE.FindStringSubmatch(m)[1], &n)
		return fmt.Sprintf("corrupt patch at line %d of the patch file", start+n)
	})
}

// AmContinue commits the resolution of a stopped `git am` session and goes
// on; the committer date stays the author date, as in a clean run.
func (r *Repo) AmContinue(ctx context.Context) error {
	args := []string{"am", "--continue", "--committer-date-is-author-date", "--keep-cr", "--quiet"}
	// Interrupted, only the index lock goes: the index holds the user's
	// resolution.
	return r.amStep(ctx, Undo{}, args, nil)
}

// AmAbort ends a stopped `git am` session and restores HEAD to where it
// was before the session. It is safe to call without one.
func (r *Repo) AmAbort(ctx context.Context) error {
	in, err := r.AmInProgress(ctx)
	if err != nil || !in {
		return err
	}
	r.RemoveStaleIndexLock(ctx)
	_, err = r.Run(ctx, "am", "--abort")
	return err
}

// AmSkip drops the patch a stopped `git am` session is at.
func (r *Repo) AmSkip(ctx context.Context) error {
	_, err := r.Run(ctx, "am", "--skip")
	return err
}

// AmInProgress reports whether a `git am` session is stopped in the tree.
func (r *Repo) AmInProgress(ctx context.Context) (bool, error) {
	dir, err := r.GitDir(ctx)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(filepath.Join(dir, "rebase-apply"))
	return err == nil, nil
}

// Sequence names a git operation a user started that is stopped in the
// repository, waiting for --continue or --abort: "rebase", "merge",
// "cherry-pick" or "revert"; or "bisect", a bisect not reset yet; "" when
// none is (a `git am` session is AmInProgress's).
func (r *Repo) Sequence(ctx context.Context) (string, error) {
	dir, err := r.GitDir(ctx)
	if err != nil {
		return "", err
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"):
		return "rebase", nil
	case exists("rebase-apply") && !exists(filepath.Join("rebase-apply", "applying")):
		return "rebase", nil
	case exists("MERGE_HEAD"):
		return "merge", nil
	case exists("CHERRY_PICK_HEAD") || exists(filepath.Join("sequencer", "todo")):
		return "cherry-pick", nil
	case exists("REVERT_HEAD"):
		return "revert", nil
	case exists("BISECT_START"):
		return "bisect", nil
	}
	return "", nil
}

// RemoveStaleIndexLock removes the index lock a git process killed by an
// interruption left behind. Callers hold the tool's lock, so no git command
// of the tool is running in the repository.
func (r *Repo) RemoveStaleIndexLock(ctx context.Context) {
	if dir, err := r.GitDir(ctx); err == nil {
		_ = os.Remove(filepath.Join(dir, "index.lock"))
	}
}

var (
	patchFailedRE  = regexp.MustCompile(`(?m)^error: patch failed: (.+:[0-9]+)$`)
	doesNotApplyRE = regexp.MustCompile(`(?m)^error: (.+): (?:patch does not apply|does not exist in index|already exists in (?:index|working directory)|No such file or directory)$`)
)

// amError parses what a stopped `git am` printed and left in the index.
func (r *Repo) amError(ctx context.Context, output string) error {
	e := &AmError{Output: output}
	files := map[string]bool{}
	unmerged, err := r.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return err
	}
	for _, f := range unmerged {
		files[f] = true
	}
	e.Unmerged = len(unmerged) > 0
	for _, m := range patchFailedRE.FindAllStringSubmatch(output, -1) {
		e.Hunks = append(e.Hunks, m[1])
		if i := strings.LastIndex(m[1], ":"); i > 0 {
			files[m[1][:i]] = true
		}
	}
	for _, m := range doesNotApplyRE.FindAllStringSubmatch(output, -1) {
		files[m[1]] = true
	}
	for f := range files {
		e.Files = append(e.Files, f)
	}
	sort.Strings(e.Files)
	return e
}

// Scratch makes dir a linked work tree of the repository, detached at rev,
// replacing whatever dir held. The cleanup removes it again; it is safe to
// call more than once and does not depend on ctx, so it works after an
// interruption.
func (r *Repo) Scratch(ctx context.Context, dir, rev string) (*Repo, func(), error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	remove := func() {
		// Twice --force: a `git worktree add` killed by an interruption
		// leaves the work tree locked ("initializing").
		_, _ = r.Run(context.Background(), "worktree", "unlock", abs)
		_, _ = r.Run(context.Background(), "worktree", "remove", "--force", "--force", abs)
		_ = os.RemoveAll(abs)
		_, _ = r.Run(context.Background(), "worktree", "prune")
	}
	remove()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, nil, err
	}
	if _, err := r.Run(ctx, "worktree", "add", "--quiet", "--detach", "--force", abs, rev); err != nil {
		remove()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("creating scratch work tree %s: %w", abs, err)
	}
	return &Repo{Dir: abs}, remove, nil
}
