package main

// Script tests: testdata/script/*.txtar, run by testscript
// (github.com/rogpeppe/go-internal/testscript) as cmd/go runs its own.
// Each script starts in an empty $WORK with a proxy serving the fake
// upstream (upstream_test.go); the commands below lay out a project, edit
// and commit in its work tree and run nomadfork, as a user would. See
// docs/testing.md for how to write one.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
)

func TestScript(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	goEnv := hostGoEnv(t)
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			return setupScript(e, self, goEnv)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"nomadfork": cmdNomadfork,
			"exitcode":  cmdExitcode,
			"project":   cmdProject,
			"pin":       cmdPin,
			"git":       cmdGit,
			"edit":      cmdEdit,
			"commit":    cmdCommit,
			"resolve":   cmdResolve,
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
		},
	})
}

// Keys of the values a script's commands share.
type (
	selfKey  struct{} // the test binary, run as nomadfork
	proxyKey struct{} // the *fixture.Proxy serving the fake upstream
	exitKey  struct{} // *int: the exit code of the last nomadfork
	snapKey  struct{} // map[string]string: the snapshots taken, by name
)

// hostGoEnv is the part of the go command's environment a script keeps:
// its HOME is not the user's, so the build cache is named.
func hostGoEnv(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go env GOCACHE GOROOT: %q", out)
	}
	return []string{"GOCACHE=" + lines[0], "GOROOT=" + lines[1]}
}

// setupScript serves the fake upstream from a proxy of the script's own
// and points the go command at it.
func setupScript(e *testscript.Env, self string, goEnv []string) error {
	// Outside $WORK, which is the project root.
	dir, err := os.MkdirTemp("", "nomadfork-script-")
	if err != nil {
		return err
	}
	e.Defer(func() { os.RemoveAll(dir) })
	proxy, err := fixture.NewProxyDir(filepath.Join(dir, "proxy"))
	if err != nil {
		return err
	}
	for _, m := range upstreamModules() {
		if _, err := proxy.Serve(m); err != nil {
			return fmt.Errorf("serving %s@%s: %w", m.Path, m.Version, err)
		}
	}
	e.Vars = append(e.Vars, goEnv...)
	e.Vars = append(e.Vars, proxy.Env(filepath.Join(dir, "modcache"))...)
	e.Vars = append(e.Vars, "GOPATH="+filepath.Join(dir, "gopath"), "GOTOOLCHAIN=local")
	// Under -race every nomadfork would otherwise sleep a second as it
	// exits.
	if os.Getenv("GORACE") == "" {
		e.Vars = append(e.Vars, "GORACE=atexit_sleep_ms=0")
	}
	e.Values[selfKey{}] = self
	e.Values[proxyKey{}] = proxy
	e.Values[exitKey{}] = new(int)
	e.Values[snapKey{}] = map[string]string{}
	return nil
}

// nomadfork args...
//
// runs nomadfork (the test binary, as TestMain lets it be) in the current
// directory. Its exit code is kept for exitcode. A panic or a data race
// fails the script even under !.
func cmdNomadfork(ts *testscript.TestScript, neg bool, args []string) {
	ts.Setenv(testMainEnv, "1")
	err := ts.Exec(ts.Value(selfKey{}).(string), args...)
	ts.Setenv(testMainEnv, "")
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("nomadfork: %v", err)
		}
		code = exit.ExitCode()
	}
	*ts.Value(exitKey{}).(*int) = code
	if stderr := ts.ReadFile("stderr"); strings.Contains(stderr, "panic: ") || strings.Contains(stderr, "WARNING: DATA RACE") {
		ts.Fatalf("nomadfork panicked or raced")
	}
	switch {
	case neg && code == 0:
		ts.Fatalf("nomadfork %s succeeded, want failure", strings.Join(args, " "))
	case !neg && code != 0:
		ts.Fatalf("nomadfork %s: exit %d", strings.Join(args, " "), code)
	}
}

// exitcode n
//
// checks the exit code of the last nomadfork.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: exitcode n")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := *ts.Value(exitKey{}).(*int); got != want {
		ts.Fatalf("nomadfork exited %d, want %d", got, want)
	}
}

// project [dir]
//
// lays out a fork of the fake upstream in dir (default the current
// directory): the default line v1.0.0 pinned with its nested api, no
// patches, targets.json and CHANGELOG.md, as newProject does.
func cmdProject(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: project [dir]")
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	ts.Check(seedProject(ts.MkAbs(dir), ts.Value(proxyKey{}).(*fixture.Proxy).Sums))
}

// pin [-no-nested] [-default] version
//
// writes patches/<version>/upstream.json, pinning the fake upstream's
// version (without its nested api with -no-nested); -default also makes
// version the default line.
func cmdPin(ts *testscript.TestScript, neg bool, args []string) {
	withAPI, isDefault := true, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-no-nested":
			withAPI = false
		case "-default":
			isDefault = true
		default:
			ts.Fatalf("pin: unknown flag %s", args[0])
		}
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pin [-no-nested] [-default] version")
	}
	ts.Check(writePin(ts.MkAbs("."), ts.Value(proxyKey{}).(*fixture.Proxy).Sums, args[0], withAPI))
	if isDefault {
		ts.Check(os.WriteFile(ts.MkAbs("patches/default-line"), []byte(args[0]+"\n"), 0o644))
	}
}

// git args...
//
// runs git in the current directory as a user would: with an identity,
// fixed dates and no global configuration. Its output is the script's
// stdout and stderr.
func cmdGit(ts *testscript.TestScript, neg bool, args []string) {
	err := runGit(ts, ts.MkAbs("."), args...)
	if err != nil && !neg {
		ts.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	if err == nil && neg {
		ts.Fatalf("git %s succeeded, want failure", strings.Join(args, " "))
	}
}

func runGit(ts *testscript.TestScript, dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	if err != nil {
		return fmt.Errorf("%v\n%s", err, stderr.Bytes())
	}
	return nil
}

// edit file old new
//
// replaces the first old in file with new; old must be there.
func cmdEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: edit file old new")
	}
	replaceIn(ts, args[0], args[1], args[2])
}

func replaceIn(ts *testscript.TestScript, file, old, new string) {
	content := ts.ReadFile(file)
	if !strings.Contains(content, old) {
		ts.Fatalf("%s does not contain %q", file, old)
	}
	ts.Check(os.WriteFile(ts.MkAbs(file), []byte(strings.Replace(content, old, new, 1)), 0o644))
}

// commit file old new subject [trailer...]
//
// edits file, in a work tree such as nomad/, and commits every change of
// that work tree as an upstream-ready patch: subject, a body, the fork's
// trailers and any more given.
func cmdCommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: commit file old new subject [trailer...]")
	}
	replaceIn(ts, args[0], args[1], args[2])
	msg := args[3] + "\n\nWhy and what.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n" + strings.Join(args[4:], "\n")
	ts.Check(runGit(ts, filepath.Dir(ts.MkAbs(args[0])), "commit", "-q", "-a", "-m", msg))
}

// resolve file resolution
//
// replaces the one conflict in file, markers included, with the line
// resolution and stages the file, as a user resolving a stopped apply or
// rebase would.
func cmdResolve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: resolve file resolution")
	}
	content := ts.ReadFile(args[0])
	start, end := strings.Index(content, "<<<<<<<"), strings.Index(content, ">>>>>>>")
	if start < 0 || end < start {
		ts.Fatalf("%s has no conflict markers", args[0])
	}
	end += strings.Index(content[end:], "\n") + 1
	path := ts.MkAbs(args[0])
	ts.Check(os.WriteFile(path, []byte(content[:start]+args[1]+"\n"+content[end:]), 0o644))
	ts.Check(runGit(ts, filepath.Dir(path), "add", filepath.Base(path)))
}

// snapshot name
//
// records, as name, what a failed or aborted change of the default line
// must leave alone: nomad/'s status, HEAD and upstream branch, the line's
// pin and patch files, and CHANGELOG.md.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot name")
	}
	ts.Value(snapKey{}).(map[string]string)[args[0]] = seriesState(ts)
}

// unchanged [-changelog] name
//
// checks that the state snapshot recorded as name is as it was; with
// -changelog, all but CHANGELOG.md (which a new line adds to).
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	changelog := len(args) > 0 && args[0] == "-changelog"
	if changelog {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unchanged [-changelog] name")
	}
	want, ok := ts.Value(snapKey{}).(map[string]string)[args[0]]
	if !ok {
		ts.Fatalf("no snapshot %s", args[0])
	}
	got := seriesState(ts)
	if changelog {
		got, _, _ = strings.Cut(got, changelogSection)
		want, _, _ = strings.Cut(want, changelogSection)
	}
	if got != want {
		ts.Fatalf("the state changed since snapshot %s:\nwant:\n%s\ngot:\n%s", args[0], want, got)
	}
}

// changelogSection starts CHANGELOG.md in a seriesState, last.
const changelogSection = "== CHANGELOG.md\n"

// seriesState is the state snapshot records, as text.
func seriesState(ts *testscript.TestScript) string {
	var b strings.Builder
	gitOut := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", ts.MkAbs("nomad")}, args...)...).Output()
		ts.Check(err)
		return string(out)
	}
	fmt.Fprintf(&b, "status:\n%sHEAD %supstream %s", gitOut("status", "--porcelain", "--untracked-files=all"),
		gitOut("rev-parse", "HEAD"), gitOut("rev-parse", "upstream"))
	dir := filepath.Join("patches", strings.TrimSpace(ts.ReadFile("patches/default-line")))
	entries, err := os.ReadDir(ts.MkAbs(dir))
	ts.Check(err)
	for _, e := range entries {
		if e.Name() == "upstream.json" || strings.HasSuffix(e.Name(), ".patch") {
			fmt.Fprintf(&b, "== %s\n%s", e.Name(), ts.ReadFile(filepath.Join(dir, e.Name())))
		}
	}
	b.WriteString(changelogSection + ts.ReadFile("CHANGELOG.md"))
	return b.String()
}
