package main

// A git wrapper for interruption tests: it forwards every invocation to the
// real git, except one chosen invocation, at which it leaves the state a
// git killed at that moment leaves, tells the test, and hangs until the
// tool's interruption kills it (or, in mode died, dies of SIGINT at once). A command the tool does not interrupt (a
// cleanup after the interruption) is not killed: it runs after the hang.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Modes of the chosen invocation.
const (
	// hangLock: git took the index lock and was killed before doing
	// anything.
	hangLock = "lock"
	// hangAfter: git did its work, and the tool was interrupted before it
	// saw the result.
	hangAfter = "after"
	// hangMid: for `git am`, the patch's changes reached the work tree
	// (new files untracked) but neither the index nor HEAD; for `git
	// worktree add`, the new work tree is registered and still locked as
	// "initializing". Otherwise as hangLock.
	hangMid = "mid"
	// died: git died of Ctrl-C before the tool's context ended (the
	// terminal signals the whole process group, and git may die first).
	// The context ends when the tool next runs git, or never if it
	// runs none.
	died = "died"
)

const fakeGitScript = `#!/bin/sh
real=%q
ctl=%q
if [ -f "$ctl/config" ]; then
	. "$ctl/config"
	n=$(( $(cat "$ctl/count" 2>/dev/null || echo 0) + 1 ))
	echo $n > "$ctl/count"
	echo "$n git $*" >> "$ctl/log"
	if [ "$MODE" = died ] && [ -e "$ctl/fired" ] && [ ! -e "$ctl/hung" ]; then
		# The tool's next git after the death: its context ends now (the
		# test polls every 2 ms; a git the tool does not interrupt, such
		# as the clean-up after the death, goes on after the wait).
		: > "$ctl/hung"
		sleep 0.5 </dev/null >/dev/null 2>&1
		exec "$real" "$@"
	fi
	fire=0
	if [ -n "$AT" ] && [ "$n" = "$AT" ]; then fire=1; fi
	if [ -n "$MATCH" ]; then
		case " $* " in *"$MATCH"*) fire=1;; esac
	fi
	if [ $fire = 1 ] && [ ! -e "$ctl/fired" ]; then
		: > "$ctl/fired"
		# git removes its locks when Ctrl-C kills it.
		[ "$MODE" = died ] && kill -INT $$
		gd=$("$real" rev-parse --git-dir 2>/dev/null)
		[ -n "$GIT_INDEX_FILE" ] && gd=""
		case " $* " in
		*" rev-parse "*|*" cat-file "*|*" hash-object "*|*" commit-tree "*|*" update-ref "*|*" log "*|*" rev-list "*|*" format-patch "*|*" merge-base "*|*" symbolic-ref "*|*" init "*|*" --check "*|*" ls-files "*|*" worktree "*) gd="" ;;
		esac
		case "$MODE" in
		after) "$real" "$@" >"$ctl/out" 2>"$ctl/err"; echo $? >"$ctl/rc" ;;
		mid)
			case " $* " in
			*" am "*)
				for last; do :; done
				[ -f "$last" ] && "$real" apply "$last" >/dev/null 2>&1
				[ -n "$gd" ] && : > "$gd/index.lock" ;;
			*" worktree add "*)
				"$real" "$@" >/dev/null 2>&1
				for a; do case "$a" in /*) dir="$a";; esac; done
				"$real" worktree lock --reason initializing "$dir" >/dev/null 2>&1 ;;
			*) [ -n "$gd" ] && : > "$gd/index.lock" ;;
			esac ;;
		*) [ -n "$gd" ] && : > "$gd/index.lock" ;;
		esac
		: > "$ctl/hung"
		sleep 3 </dev/null >/dev/null 2>&1
		# Not killed: the tool does not interrupt this command (a cleanup
		# that runs after the interruption), so it runs after all.
		if [ "$MODE" = after ]; then
			cat "$ctl/out"; cat "$ctl/err" >&2; exit $(cat "$ctl/rc")
		fi
		[ -n "$gd" ] && rm -f "$gd/index.lock"
		exec "$real" "$@"
	fi
fi
exec "$real" "$@"
`

// fakeGit controls the wrapper.
type fakeGit struct {
	ctl string
	// fired is the invocation the last interruptAt hung, as logged.
	hung string
}

// installFakeGit puts the wrapper first on PATH for the rest of the test.
func installFakeGit(t *testing.T) *fakeGit {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	if !filepath.IsAbs(real) {
		real, _ = filepath.Abs(real)
	}
	bin, ctl := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fmt.Sprintf(fakeGitScript, real, ctl)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &fakeGit{ctl: ctl}
}

// arm makes the invocation matching match (a substring of its arguments,
// with spaces around), or the at-th invocation counted from now, hang in
// mode.
func (f *fakeGit) arm(t *testing.T, match string, at int, mode string) {
	t.Helper()
	for _, n := range []string{"count", "log", "fired", "hung"} {
		os.Remove(filepath.Join(f.ctl, n))
	}
	cfg := fmt.Sprintf("MATCH=%q\nAT=%q\nMODE=%q\n", match, atString(at), mode)
	if err := os.WriteFile(filepath.Join(f.ctl, "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func atString(at int) string {
	if at <= 0 {
		return ""
	}
	return strconv.Itoa(at)
}

// disarm turns the wrapper into a plain forwarder and returns the
// invocations it saw while armed.
func (f *fakeGit) disarm() []string {
	os.Remove(filepath.Join(f.ctl, "config"))
	data, _ := os.ReadFile(filepath.Join(f.ctl, "log"))
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// fired reports whether the armed invocation happened.
func (f *fakeGit) fired() bool {
	_, err := os.Stat(filepath.Join(f.ctl, "fired"))
	return err == nil
}

// interruptAt runs nomadfork with the wrapper armed and interrupts it (as
// Ctrl-C does: the context ends) once the chosen git invocation hangs.
func (p *project) interruptAt(f *fakeGit, match string, at int, mode string, args ...string) result {
	p.t.Helper()
	f.arm(p.t, match, at, mode)
	defer func() {
		f.hung = ""
		for _, l := range f.disarm() {
			if at > 0 && strings.HasPrefix(l, strconv.Itoa(at)+" ") {
				f.hung = l
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		// Polls for the wrapper's report; the interruption is what is
		// under test, not its timing.
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := os.Stat(filepath.Join(f.ctl, "hung")); err == nil {
					cancel()
					return
				}
			}
		}
	}()
	var stdout, stderr syncBuffer
	code := run(ctx, append([]string{"-C", p.dir}, args...), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}
