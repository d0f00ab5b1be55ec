package main

// Crash-safety tests: the B1–B8 cases of issue 21, each a sequence that
// used to corrupt, wedge or silently undo the series.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fourPatches records 0001 (F5), 0002 (F20), 0003 (F7) and 0004 (F8,
// Depends-On: 0003).
func (p *project) fourPatches() {
	p.t.Helper()
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "return 20 }", "return 200 }", "lib: make F20 return 200")
	p.commitEdit("lib/lib.go", "return 7 }", "return 70 }", "lib: make F7 return 70")
	p.commitEditWith("lib/lib.go", "return 8 }", "return 80 }", "lib: make F8 return 80", "Depends-On: 0003")
	p.mustRun("extract")
}

// conflictSeries records one patch (F10) that conflicts with v1.0.2.
func (p *project) conflictSeries() {
	p.t.Helper()
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
}

// unwritable makes file unwritable, also for root (immutable), until the
// test ends or the returned function runs.
func unwritable(t *testing.T, file string) func() {
	t.Helper()
	undo := func() { os.Chmod(file, 0o644) }
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", file).CombinedOutput(); err != nil {
			t.Skipf("chattr +i: %v: %s", err, out)
		}
		undo = func() { exec.Command("chattr", "-i", file).Run() }
	} else if err := os.Chmod(file, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(undo)
	return undo
}

// B1: an in-place rebase onto a version that is already a line is refused
// at the start, and a line made meanwhile is found before the first write
// of the completing -continue, which leaves the rebase stopped.
func TestCrashB1RebaseOntoExistingLine(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("rebase", "-onto", "v1.0.1", "-new-line")
	before := p.snapshot()
	r := p.nomadfork("rebase", "-onto", "v1.0.1")
	p.expect(r, 2, "line v1.0.1 exists already", "nomadfork apply -line v1.0.1")
	p.mustEqual(before)
	// Every verb still works, and so does the advised command.
	p.mustRun("apply")
	p.mustRun("apply", "-line", "v1.0.1")
	p.mustRun("check", "-no-build")

	// The target line appears while the rebase is stopped.
	q := newProject(t)
	q.conflictSeries()
	before = q.snapshot()
	q.mustFail("rebase", "-onto", "v1.0.2")
	q.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	if err := os.MkdirAll(filepath.Join(q.dir, "patches", "v1.0.2"), 0o755); err != nil {
		t.Fatal(err)
	}
	q.pin("v1.0.2", true)
	r = q.nomadfork("rebase", "-continue")
	q.expect(r, 1, "line v1.0.2 exists already")
	before.status = q.git("status", "--porcelain", "--untracked-files=all")
	before.head = q.git("rev-parse", "HEAD")
	before.base = q.git("rev-parse", "upstream")
	q.mustEqual(before)
	// -abort works and restores everything.
	q.mustRun("rebase", "-abort")
	q.mustRun("apply")
	q.mustRun("check", "-no-build")
}

// B2: drop's edit of a patch file survives the next extract, and so does a
// hand edit: extract refuses to overwrite it, naming the way to keep it.
// drop while the work tree holds a commit not yet extracted is refused,
// and the advised extract then drop keep both: before, drop edited the
// patch file, and apply and extract each advised the other (each -force
// discarding one of the two edits).
// Rewording the subject of a patch another one depends on renames its file
// but keeps its number: extract writes the series (it refused every time,
// -force included, taking the renamed dependency for one that left).
func TestCrashRewordedDependency(t *testing.T) {
	p := newProject(t)
	p.graphSeries(true)
	p.git("-c", "sequence.editor=sed -i '1s/^pick/reword/'", "-c", "core.editor=sed -i '1s/.*/lib: add the function G/'", "rebase", "-q", "-i", "upstream")
	r := p.mustRun("extract")
	if !p.exists(filepath.Join(p.lineDir(), "0001-lib-add-the-function-G.patch")) || p.exists(filepath.Join(p.lineDir(), "0001-lib-add-G.patch")) {
		t.Errorf("0001 not renamed:\n%s", r.stdout)
	}
	containsAll(t, "0003 after the reword", p.read(filepath.Join(p.lineDir(), "0003-lib-make-F20-use-G.patch")), "Depends-On: 0001\n")
}

// Dropping a patch and rewording a later one in the same rebase: the
// reworded commit is matched to its old patch by patch-id, so its
// Depends-On follows the renumbering (it kept the old number, which then
// named the wrong patch — itself here — with extract and check passing).
func TestCrashRewordedAndRenumbered(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitFile("lib/g.go", "package lib\n\n// G returns 19.\nfunc G() int { return 19 }\n", "lib: add G")
	p.commitEditWith("lib/lib.go", "return 20 }", "return G() + 1 }", "lib: make F20 use G", "Depends-On: 0002")
	p.mustRun("extract")
	p.git("-c", "sequence.editor=sed -i '1s/^pick/drop/; 3s/^pick/reword/'", "-c", "core.editor=sed -i '1s/.*/lib: make F20 call G/'", "rebase", "-q", "-i", "upstream")
	p.mustRun("extract")
	got := p.read(filepath.Join(p.lineDir(), "0002-lib-make-F20-call-G.patch"))
	if !strings.Contains(got, "Depends-On: 0001\n") || strings.Contains(got, "Depends-On: 0002\n") {
		t.Errorf("the reworded 0002 does not depend on 0001 (lib: add G):\n%s", got)
	}
	p.mustRun("check", "-no-build")
}

// BAD-5 of the fourth trial: dropping a patch and, in the same rebase,
// changing both the subject and the diff of a later one. Neither name nor
// patch-id matches; the commit is matched by its place in the series, so
// its Depends-On follows the renumbering (it kept the old number, which
// then named another patch, with extract and check passing).
func TestCrashRewordedEditedAndRenumbered(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitFile("lib/g.go", "package lib\n\n// G returns 19.\nfunc G() int { return 19 }\n", "lib: add G")
	p.commitEdit("lib/lib.go", "return 7 }", "return 70 }", "lib: make F7 return 70")
	p.commitEditWith("lib/lib.go", "return 20 }", "return G() + 1 }", "lib: make F20 use G", "Depends-On: 0002")
	p.mustRun("extract")
	p.git("-c", "sequence.editor=sed -i '1s/^pick/drop/; 4s/^pick/edit/'", "rebase", "-q", "-i", "upstream")
	p.write("nomad/lib/lib.go", strings.Replace(p.read("nomad/lib/lib.go"), "return G() + 1 }", "return G() + 2 }", 1))
	p.git("-c", "core.editor=sed -i '1s/.*/lib: make F20 call G plus two/'", "commit", "-q", "-a", "--amend")
	p.git("rebase", "--continue")
	r := p.mustRun("extract")
	name := filepath.Join(p.lineDir(), "0003-lib-make-F20-call-G-plus-two.patch")
	got := p.read(name)
	if !strings.Contains(got, "Depends-On: 0001\n") || strings.Contains(got, "Depends-On: 0002\n") {
		t.Errorf("the reworded and edited 0003 does not depend on 0001 (lib: add G):\n%s", got)
	}
	containsAll(t, "extract", r.stdout, "note: "+name+" is taken for 0004-lib-make-F20-use-G.patch by its place in the series")
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("extract warned:\n%s", r.stderr)
	}
	p.mustRun("check", "-no-build")
}

// A commit new to the series whose Depends-On names a number the
// renumbering gave to another patch keeps its trailer as written, and
// extract warns, naming the patch, the old and the new number and the way
// to reword it; after that reword, it is quiet.
func TestCrashNewCommitDependsOnAfterRenumbering(t *testing.T) {
	p := newProject(t)
	p.fourPatches()
	c1, c2 := p.git("rev-parse", "HEAD~3"), p.git("rev-parse", "HEAD~2")
	p.git("rebase", "-q", "--onto", c1, c2, "fork")
	p.commitEditWith("lib/lib.go", "return 25 }", "return 250 }", "lib: make F25 return 250", "Depends-On: 0003")
	r := p.mustRun("extract")
	containsAll(t, "extract", r.stderr,
		"warning: patches/v1.0.0/0004-lib-make-F25-return-250.patch is new to the series and keeps `Depends-On: 0003` as written",
		"the old 0003 (0003-lib-make-F7-return-70.patch) is now 0002",
		"reword its Depends-On in nomad/ (`git rebase -i upstream`", "then run `nomadfork extract`")
	containsAll(t, "0004", p.read(filepath.Join(p.lineDir(), "0004-lib-make-F25-return-250.patch")), "Depends-On: 0003\n")
	// The advised reword, then extract: quiet.
	p.git("-c", "sequence.editor=sed -i '4s/^pick/reword/'", "-c", "core.editor=sed -i 's/^Depends-On: 0003$/Depends-On: 0002/'", "rebase", "-q", "-i", "upstream")
	r = p.mustRun("extract")
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("extract warned after the reword:\n%s", r.stderr)
	}
	containsAll(t, "0004", p.read(filepath.Join(p.lineDir(), "0004-lib-make-F25-return-250.patch")), "Depends-On: 0002\n")
	p.mustRun("check", "-no-build")
}

func TestCrashDropOverUnextractedCommit(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.commitFile("lib/extra.go", "package lib\n", "lib: an extra commit")
	before := p.snapshot()
	r := p.nomadfork("drop", "0002", "-applied-upstream", "v1.1.0")
	p.expect(r, 1, "has commits that patches/ does not hold yet", "0003-lib-an-extra-commit.patch", "nomadfork extract")
	p.mustEqual(before)
	p.mustRun("extract")
	p.mustRun("drop", "0002", "-applied-upstream", "v1.1.0")
	p.mustRun("extract")
	containsAll(t, "0002 after drop", p.read(filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch")), "Upstream-Status: applied v1.1.0\n")
	if !p.exists(filepath.Join(p.lineDir(), "0003-lib-an-extra-commit.patch")) {
		t.Errorf("the extra commit is not 0003")
	}
}

func TestCrashB2NoSilentUndo(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("drop", "0002", "-applied-upstream", "v1.1.0", "-pr", "https://github.com/example/up/pull/7")
	p.mustRun("extract")
	patch := p.read(filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch"))
	containsAll(t, "0002 after drop and extract", patch, "Upstream-Status: applied v1.1.0\n", "Applied-Upstream: https://github.com/example/up/pull/7\n")

	// A hand edit of a patch file.
	name := filepath.Join(p.lineDir(), "0001-lib-make-F5-return-50.patch")
	edited := strings.Replace(p.read(name), "Why and what.", "Why and what, edited by hand.", 1)
	p.write(name, edited)
	r := p.nomadfork("extract")
	p.expect(r, 1, "0001-lib-make-F5-return-50.patch", "changed since", "nomadfork apply", "extract -force")
	if p.read(name) != edited {
		t.Fatalf("extract overwrote the hand edit")
	}
	// The advised command keeps the edit.
	p.mustRun("apply")
	r = p.mustRun("extract")
	if p.read(name) != edited || strings.Contains(r.stdout, "updated") {
		t.Errorf("apply then extract lost the edit:\n%s", r.stdout)
	}
	// -force overwrites it.
	p.write(name, strings.Replace(edited, "edited by hand", "edited again", 1))
	p.mustRun("extract", "-force")
	if p.read(name) != edited {
		t.Errorf("extract -force did not write the work tree's version")
	}
}

// B3: `rebase -continue` interrupted while git commits the resolution
// (git killed holding the index lock, or after it committed) resumes with
// the next -continue and keeps the hand resolution.
func TestCrashB3InterruptedContinueKeepsResolution(t *testing.T) {
	for _, mode := range []string{hangLock, hangAfter} {
		t.Run(mode, func(t *testing.T) {
			p := newProject(t)
			f := installFakeGit(t)
			p.conflictSeries()
			p.mustFail("rebase", "-onto", "v1.0.2")
			p.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
			r := p.interruptAt(f, " am --continue ", 0, mode, "rebase", "-continue")
			if !f.fired() || r.code != exitInterrupted {
				t.Fatalf("not interrupted (fired %v): exit %d\n%s", f.fired(), r.code, r.stderr)
			}
			p.expect(r, exitInterrupted, "run `nomadfork rebase -continue` to resume")
			r = p.mustRun("rebase", "-continue")
			containsAll(t, "resumed -continue", r.stdout, "1 resolved by hand")
			if !strings.Contains(p.read(filepath.Join(p.lineDir(), "0002-lib-make-F10-return-100.patch")), "// merged") {
				t.Errorf("the resolution was lost")
			}
			p.mustRun("check", "-no-build")
		})
	}
}

// B4: an in-place rebase interrupted while git checks out the new base
// resumes with the advised -continue.
func TestCrashB4InterruptedCheckoutOfNewBase(t *testing.T) {
	p := newProject(t)
	f := installFakeGit(t)
	p.twoPatches()
	r := p.interruptAt(f, " checkout --quiet --force -B fork ", 0, hangLock, "rebase", "-onto", "v1.0.1")
	p.expect(r, exitInterrupted, "run `nomadfork rebase -continue` to resume")
	r = p.mustRun("rebase", "-continue")
	containsAll(t, "resumed rebase", r.stdout, "2 applied cleanly")
	p.mustRun("check", "-no-build", "-line", "v1.0.1")
	if got := p.git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("work tree not clean: %q", got)
	}
}

// B5: apply interrupted inside `git am` (the patch's new file already in
// the work tree, untracked) resumes with the advised apply, and extract
// then makes no bogus patch.
func TestCrashB5InterruptedAmLeavesNoUntrackedFiles(t *testing.T) {
	p := newProject(t)
	f := installFakeGit(t)
	p.graphSeries(true) // 0001 adds lib/g.go
	want := p.patchFiles()
	p.git("reset", "-q", "--hard", "upstream")
	r := p.interruptAt(f, " am ", 0, hangMid, "apply")
	p.expect(r, exitInterrupted, "run `nomadfork apply` to resume")
	p.mustRun("apply")
	r = p.mustRun("extract")
	if strings.Contains(r.stdout, "added") || strings.Count(r.stdout, "unchanged") != 3 {
		t.Errorf("extract after the resumed apply:\n%s", r.stdout)
	}
	if got := p.patchFiles(); len(got) != len(want) {
		t.Errorf("patches = %v", keys(got))
	}
	if got := p.git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("work tree not clean: %q", got)
	}
}

// B6: check and status interrupted while git makes their scratch work
// tree leave no lock that blocks the next run.
func TestCrashB6InterruptedScratchWorktree(t *testing.T) {
	p := newProject(t)
	f := installFakeGit(t)
	p.twoPatches()
	r := p.interruptAt(f, " worktree add ", 0, hangMid, "check", "-no-build")
	p.expect(r, exitInterrupted, "run `nomadfork check -no-build` to resume")
	p.mustRun("check", "-no-build")
	p.mustRun("status", "-against", "v1.0.1")
	r = p.interruptAt(f, " worktree add ", 0, hangMid, "status", "-against", "v1.0.1")
	p.expect(r, exitInterrupted, "run `nomadfork status -against v1.0.1` to resume")
	p.mustRun("status", "-against", "v1.0.1")
	p.mustRun("check", "-no-build")
}

// B7: a rebase whose completion cannot write the pin changes nothing:
// the refusal names the file, the rebase stays stopped, and -abort
// restores what it says.
func TestCrashB7UnwritablePin(t *testing.T) {
	p := newProject(t)
	p.conflictSeries()
	before := p.snapshot()
	p.mustFail("rebase", "-onto", "v1.0.2")
	p.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	pinFile := filepath.Join(p.dir, p.lineDir(), "upstream.json")
	undo := unwritable(t, pinFile)
	r := p.nomadfork("rebase", "-continue")
	p.expect(r, 1, "patches/v1.0.0/upstream.json", "not writable", "nomadfork rebase -continue")
	if got := p.patchFiles(); got["0002-lib-make-F10-return-100.patch"] != before.patches["0002-lib-make-F10-return-100.patch"] {
		t.Errorf("patches rewritten although the rebase could not complete")
	}
	if p.read("CHANGELOG.md") != before.changelog || p.read(filepath.Join(p.lineDir(), "upstream.json")) != before.pin {
		t.Errorf("CHANGELOG.md or pin changed")
	}
	// Made writable again, the advised -continue completes.
	undo()
	r = p.mustRun("rebase", "-continue")
	containsAll(t, "continue", r.stdout, "1 resolved by hand")
	p.mustRun("check", "-no-build", "-line", "v1.0.2")

	// And -abort, instead, restores everything.
	q := newProject(t)
	q.conflictSeries()
	before = q.snapshot()
	q.mustFail("rebase", "-onto", "v1.0.2")
	q.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	unwritable(t, filepath.Join(q.dir, q.lineDir(), "upstream.json"))
	q.mustFail("rebase", "-continue")
	r = q.mustRun("rebase", "-abort")
	containsAll(t, "abort", r.stdout, "pin and patches are as before")
	q.mustEqual(before)
	q.mustRun("apply")
}

// B8: dropping a commit in the work tree renumbers the later patches;
// extract prints every rename and rewrites Depends-On to the new numbers,
// or refuses when a patch depends on the dropped one.
func TestCrashB8RenumberRewritesDependsOn(t *testing.T) {
	p := newProject(t)
	p.fourPatches()
	// Drop 0002 with git rebase, as a user would.
	c1 := p.git("rev-parse", "HEAD~3")
	c2 := p.git("rev-parse", "HEAD~2")
	p.git("rebase", "-q", "--onto", c1, c2, "fork")
	r := p.mustRun("extract")
	containsAll(t, "extract", r.stdout,
		"renamed   patches/v1.0.0/0003-lib-make-F7-return-70.patch -> 0002-lib-make-F7-return-70.patch",
		"renamed   patches/v1.0.0/0004-lib-make-F8-return-80.patch -> 0003-lib-make-F8-return-80.patch",
		"removed   patches/v1.0.0/0002-lib-make-F20-return-200.patch")
	got := p.read(filepath.Join(p.lineDir(), "0003-lib-make-F8-return-80.patch"))
	if !strings.Contains(got, "Depends-On: 0002\n") {
		t.Errorf("Depends-On not renumbered:\n%s", got)
	}
	p.mustRun("check", "-no-build")
	p.mustRun("apply")
	if r := p.mustRun("extract"); strings.Contains(r.stdout, "updated") {
		t.Errorf("extract after apply changed files:\n%s", r.stdout)
	}

	// Dropping the patch another depends on is refused.
	q := newProject(t)
	q.fourPatches()
	before := q.patchFiles()
	c2 = q.git("rev-parse", "HEAD~2")
	c3 := q.git("rev-parse", "HEAD~1")
	q.git("rebase", "-q", "--onto", c2, c3, "fork")
	r = q.nomadfork("extract")
	q.expect(r, 1, "0004-lib-make-F8-return-80.patch", "Depends-On: 0003", "0003-lib-make-F7-return-70.patch", "no longer in the series")
	if got := q.patchFiles(); len(got) != len(before) {
		t.Errorf("patches changed: %v", keys(got))
	}
}

// B1 for a line other than the default one: moved in place with its work
// tree, and refused onto a line that exists.
func TestCrashB1OtherLine(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("rebase", "-onto", "v1.0.1", "-new-line")
	p.mustRun("rebase", "-onto", "v1.0.2", "-new-line")
	// v1.0.1 onto v1.0.2, which exists: refused, nothing changes.
	pin101 := p.read("patches/v1.0.1/upstream.json")
	r := p.nomadfork("rebase", "-line", "v1.0.1", "-onto", "v1.0.2")
	p.expect(r, 2, "line v1.0.2 exists already", "nomadfork apply -line v1.0.2")
	if p.read("patches/v1.0.1/upstream.json") != pin101 {
		t.Errorf("line v1.0.1's pin changed")
	}
	p.mustRun("apply", "-line", "v1.0.1")
	// v1.0.1 onto v1.1.0: the line and its work tree move.
	r = p.mustRun("rebase", "-line", "v1.0.1", "-onto", "v1.1.0")
	containsAll(t, "rebase -line v1.0.1", r.stdout, "line v1.0.1 is now line v1.1.0")
	if p.exists("patches/v1.0.1") || p.exists("lines/v1.0.1") || !p.exists("lines/v1.1.0/nomad/lib/lib.go") {
		t.Errorf("line v1.0.1 did not move with its work tree")
	}
	if got := strings.TrimSpace(p.read("patches/default-line")); got != "v1.0.0" {
		t.Errorf("default line = %s", got)
	}
	p.mustRun("check", "-no-build", "-line", "v1.1.0")
	if r := p.mustRun("extract", "-line", "v1.1.0"); strings.Count(r.stdout, "unchanged") != 2 {
		t.Errorf("extract -line v1.1.0:\n%s", r.stdout)
	}
}

// An extract that cannot replace a patch file changes nothing and says
// so, with how to make the file writable and the command to run then
// (trial 5's U-d); that command then works.
func TestCrashUnwritablePatchOnExtract(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	p.git("commit", "-q", "--amend", "-m", "lib: make F20 return two hundred\n\nUpstream-Status: pending\n")
	file := filepath.Join(p.dir, p.lineDir(), "0002-lib-make-F20-return-200.patch")
	undo := unwritable(t, file)
	r := p.nomadfork("extract")
	p.expect(r, 1, "not writable", "nothing was changed", "writable", "then run `nomadfork extract`")
	if got := p.patchFiles(); len(got) != len(before.patches) || got["0002-lib-make-F20-return-200.patch"] != before.patches["0002-lib-make-F20-return-200.patch"] {
		t.Errorf("patch files changed although extract could not write one: %v", got)
	}
	undo()
	p.mustRun("extract")
	if _, ok := p.patchFiles()["0002-lib-make-F20-return-two-hundred.patch"]; !ok {
		t.Errorf("the advised extract did not write the reworded patch: %v", p.patchFiles())
	}
}

// A new commit whose diff repeats a patch kept under its own name (a
// change made, undone, then made again) is not that patch: extract
// keeps the other patches' Depends-On as they are (the patch-id match
// once took it for 0001 moved to 0003, and rewrote 0002's Depends-On:
// 0001 to 0003).
func TestCrashRepeatedDiffKeepsDependsOn(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F5() int { return 5 }", "func F5() int { return 6 }", "lib: make F5 return 6")
	p.commitEditWith("lib/lib.go", "return 6 }", "return 5 }", "lib: make F5 return 5 again", "Depends-On: 0001")
	p.mustRun("extract")
	p.commitEditWith("lib/lib.go", "func F5() int { return 5 }", "func F5() int { return 6 }", "lib: make F5 return 6 once more", "Depends-On: 0002")
	p.mustRun("extract")
	files := p.patchFiles()
	if got := files["0002-lib-make-F5-return-5-again.patch"]; !strings.Contains(got, "Depends-On: 0001\n") {
		t.Errorf("0002's Depends-On changed:\n%s", got)
	}
	if got := files["0003-lib-make-F5-return-6-once-more.patch"]; !strings.Contains(got, "Depends-On: 0002\n") {
		t.Errorf("0003's Depends-On changed:\n%s", got)
	}
	p.mustRun("check", "-no-build")
}

// A rebase whose record of a patch's outcome fails after `git am` applied
// the patch (the git recording it killed, the disk full) resumes with
// -continue, which tries the patch again: read from the work tree, the
// applied patch looked carried by the target and the CHANGELOG said
// "dropped as upstream". Uncommitted changes on top of the unrecorded
// patch are refused, never reset away.
func TestCrashRebaseOutcomeNotRecorded(t *testing.T) {
	tmpl := newProject(t)
	tmpl.twoPatches()
	f := installFakeGit(t)
	ref := copyProject(t, tmpl)
	f.arm(t, "", 0, "")
	ref.mustRun("rebase", "-onto", "v1.1.0")
	calls := f.disarm()
	want := ref.outcome("v1.1.0")
	// The first git after the last patch's `git am`: the outcome's record.
	k := 0
	for i, l := range calls {
		if strings.Contains(l, " git am ") {
			k = i + 2
		}
	}
	if k == 0 || k > len(calls) {
		t.Fatalf("no git am in the rebase's git invocations:\n%s", strings.Join(calls, "\n"))
	}
	for _, dirty := range []bool{false, true} {
		t.Run(fmt.Sprintf("dirty=%v", dirty), func(t *testing.T) {
			p := copyProject(t, tmpl)
			r := p.interruptAt(f, "", k, died, "rebase", "-onto", "v1.1.0")
			if !f.fired() {
				t.Fatalf("git invocation %d not reached", k)
			}
			p.expect(r, exitInterrupted, "run `nomadfork rebase -continue` to resume")
			if dirty {
				p.continueRefusesKeepingChange("uncommitted changes")
				p.git("checkout", "--", "lib/lib.go")
			}
			r = p.mustRun("rebase", "-continue")
			if !strings.Contains(r.stdout, "1 applied cleanly, 1 by 3-way merge, 0 resolved by hand; dropped 0.") {
				t.Errorf("resumed rebase: not the uninterrupted run's outcomes:\n%s", r.stdout)
			}
			if d := p.outcome("v1.1.0").diff(want); d != "" {
				t.Errorf("series differs from the uninterrupted run's: %s", d)
			}
		})
	}
}

// A hand resolution that keeps the target's side leaves the stopped patch
// empty: -continue drops it as carried by the target (`git am --continue`
// alone refused it on every -continue, a dead end but for -abort). With
// changes left unstaged it still asks for `git add`, and drops nothing.
func TestRebaseContinueEmptyResolution(t *testing.T) {
	for _, unstaged := range []bool{false, true} {
		t.Run(fmt.Sprintf("unstaged=%v", unstaged), func(t *testing.T) {
			p := newProject(t)
			p.conflictSeries()
			p.mustFail("rebase", "-onto", "v1.0.2")
			p.git("checkout", "--ours", "lib/lib.go")
			p.git("add", "lib/lib.go")
			if unstaged {
				p.continueRefusesKeepingChange("`git add` the resolved files")
				return
			}
			r := p.mustRun("rebase", "-continue")
			containsAll(t, "rebase -continue", r.stdout, "upstream", "0002-lib-make-F10-return-100.patch", "the hand resolution leaves it empty")
			if _, ok := p.patchFiles()["0002-lib-make-F10-return-100.patch"]; ok {
				t.Errorf("the emptied patch is still in the series: %v", keys(p.patchFiles()))
			}
			if !strings.Contains(p.read("CHANGELOG.md"), "0002-lib-make-F10-return-100.patch: dropped as upstream") {
				t.Errorf("CHANGELOG.md does not record the drop:\n%s", p.read("CHANGELOG.md"))
			}
			p.mustRun("check", "-no-build", "-line", "v1.0.2")
		})
	}
}

// An interrupted `apply -force` advises `apply -force`: interrupted before
// it discarded the work tree's changes, a plain apply refuses them.
func TestInterruptedApplyForceAdvisesForce(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.write("nomad/lib/lib.go", p.read("nomad/lib/lib.go")+"// scratch\n")
	r := p.interruptAtStep(1, "apply", "-force")
	p.expect(r, exitInterrupted, "run `nomadfork apply -force` to resume")
	p.mustRun("apply", "-force")
	if got := p.git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("work tree not clean: %q", got)
	}
}

// `apply -continue` after a resolution that leaves the stopped patch empty
// says so and names the ways out (it repeated "`git add` the resolved
// files" for ever, as rebase -continue did). apply never drops a patch
// itself.
func TestApplyContinueEmptyResolution(t *testing.T) {
	p := newProject(t)
	p.conflictSeries()
	p.repin("v1.0.2")
	p.mustFail("apply")
	p.git("checkout", "--ours", "lib/lib.go")
	p.git("add", "lib/lib.go")
	r := p.nomadfork("apply", "-continue")
	p.expect(r, 1, "the resolution leaves 0002-lib-make-F10-return-100.patch empty")
	containsAll(t, "apply -continue", r.stderr, "apply never drops a patch", "`nomadfork apply -abort`", "`nomadfork rebase -onto <version>`")
	p.mustRun("apply", "-abort")
	if got := p.git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("work tree not clean after apply -abort: %q", got)
	}
}

// continueRefusesKeepingChange changes nomad/lib/lib.go without staging
// it, and checks that `rebase -continue` refuses, saying want, and keeps
// the change.
func (p *project) continueRefusesKeepingChange(want string) {
	p.t.Helper()
	p.write("nomad/lib/lib.go", p.read("nomad/lib/lib.go")+"// mine\n")
	p.expect(p.nomadfork("rebase", "-continue"), 1, want)
	if !strings.HasSuffix(p.read("nomad/lib/lib.go"), "// mine\n") {
		p.t.Fatal("the change in the work tree was lost")
	}
}
