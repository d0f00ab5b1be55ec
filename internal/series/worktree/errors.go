package worktree

import (
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// RefusalError is returned when an operation would lose work.
type RefusalError struct {
	// What says what would be lost.
	What hint.Message
	// Items lists the affected files or commits.
	Items []string
	// Hint says how to proceed.
	Hint hint.Message
}

func (e *RefusalError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *RefusalError) Render(r hint.Renderer) string {
	var b strings.Builder
	b.WriteString("refusing: " + e.What.Render(r))
	const max = 20
	for i, it := range e.Items {
		if i == max {
			fmt.Fprintf(&b, "\n\t… and %d more", len(e.Items)-max)
			break
		}
		b.WriteString("\n\t" + it)
	}
	if !e.Hint.IsZero() {
		b.WriteString("\n" + e.Hint.Render(r))
	}
	return b.String()
}

// ConflictError is returned when a patch does not apply.
type ConflictError struct {
	// Patch is the file name of the patch that failed.
	Patch string
	// Conflict is set when the merge left conflicts to resolve; otherwise
	// the patch did not apply at all and Output holds git's message.
	Conflict bool
	// Files are the files with conflicts or rejected hunks.
	Files []string
	// Hunks locate the rejected hunks as path:line of the patch's preimage.
	Hunks []string
	// Output is what git printed.
	Output string
	// Resume says how to go on.
	Resume hint.Message
	// Cause, if set, is the likely real cause, said first.
	Cause string
}

func (e *ConflictError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *ConflictError) Render(r hint.Renderer) string {
	var b strings.Builder
	if e.Cause != "" {
		b.WriteString(e.Cause + "\n")
	}
	if e.Conflict {
		fmt.Fprintf(&b, "patch %s conflicts", e.Patch)
	} else {
		fmt.Fprintf(&b, "patch %s does not apply: %s", e.Patch, git.GitMessage(e.Output))
	}
	if len(e.Files) > 0 {
		b.WriteString(map[bool]string{true: "\nconflicts in:", false: "\nin:"}[e.Conflict])
		for _, f := range e.Files {
			b.WriteString("\n\t" + f)
		}
	}
	if len(e.Hunks) > 0 {
		b.WriteString("\nrejected hunks (file:line before the patch):")
		for _, h := range e.Hunks {
			b.WriteString("\n\t" + h)
		}
	}
	if !e.Resume.IsZero() {
		b.WriteString("\n" + e.Resume.Render(r))
	}
	return b.String()
}

// EditedError is returned by Extract when it would overwrite patch files
// or delete them: Files changed since nomadfork last wrote or applied
// them, Added were not in that series (they came with a git pull or a
// merge).
type EditedError struct {
	Dir   string
	Files []string
	Added []string
	// Keep, when set, is the sequence that keeps both the edited files
	// and the work tree's commits not extracted yet.
	Keep hint.Message
}

func (e *EditedError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *EditedError) Render(r hint.Renderer) string {
	what := hint.Sprintf("these patch files in %s changed since nomadfork last wrote or applied them, and extract would overwrite them with the work tree's commits:", e.Dir)
	items := e.Files
	if len(e.Added) > 0 {
		what = hint.Sprintf("these patch files in %s changed since nomadfork last wrote or applied them, or were added since (by a git pull or a merge), and extract would overwrite or delete them with the work tree's commits:", e.Dir)
		items = nil
		for _, f := range e.Files {
			items = append(items, f+" (changed)")
		}
		for _, f := range e.Added {
			items = append(items, f+" (added, not in the work tree)")
		}
	}
	advice := hint.Sprintf("to keep them, run %s first (it applies patches/ to the work tree), then %s; to discard them, run %s",
		hint.Run("apply"), hint.Run("extract"), hint.Run("extract", "-force"))
	if !e.Keep.IsZero() {
		advice = e.Keep
	}
	return (&RefusalError{What: what, Items: items, Hint: advice}).Render(r)
}

// UnappliedError is returned by Extract, even with -force, when it would
// delete or overwrite patch files that an aborted apply never applied to
// the work tree: their commits are missing because the apply stopped, not
// because the user dropped them. While such an apply is pending, any file
// whose diff the work tree lacks counts, whatever its name: a patch
// renamed by hand is matched by its content.
type UnappliedError struct {
	// Dir is the patch directory, Tree the work tree.
	Dir, Tree string
	// Files are the patch files extract would delete or overwrite.
	Files []string
}

func (e *UnappliedError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *UnappliedError) Render(r hint.Renderer) string {
	return (&RefusalError{
		What:  hint.Sprintf("these patch files in %s hold changes %s lacks: an apply stopped and was aborted, so they were never applied (or were dropped since; extract cannot tell, whatever the file's name), and extract would delete or overwrite them, even with -force:", e.Dir, e.Tree),
		Items: e.Files,
		Hint: hint.Sprintf("run %s to apply them (a patch file that does not apply: fix it, or restore it with `git checkout -- <file>`), then %s; "+
			"to drop one from the series on purpose, apply first, then drop its commit (`git -C %s rebase -i %s`) and run %s, which renumbers the files "+
			"(deleting a patch file now leaves a gap that apply refuses)", hint.Run("apply"), hint.Run("extract"), e.Tree, BaseBranch, hint.Run("extract")),
	}).Render(r)
}

// DependencyGoneError is returned by Extract when a patch's Depends-On
// names a patch the work tree's commits no longer hold.
type DependencyGoneError struct {
	Patch, Dep string
	Number     int
}

func (e *DependencyGoneError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *DependencyGoneError) Render(r hint.Renderer) string {
	return hint.Sprintf("%s has Depends-On: %04d, but %s is no longer in the series; "+
		"in the work tree, reword that commit's Depends-On (`git rebase -i upstream`, \"reword\"), then run %s again",
		e.Patch, e.Number, e.Dep, hint.Run("extract")).Render(r)
}
