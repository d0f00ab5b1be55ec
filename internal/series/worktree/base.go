package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

// ImportBase commits the upstream tree made of mods (the main module first,
// then nested modules at their dirs) as a root commit and returns it. It
// neither moves refs nor touches the work tree. The commit is a pure
// function of the modules: same pin, same commit hash.
func (t *Tree) ImportBase(ctx context.Context, mods []*upstream.Module) (string, error) {
	if len(mods) == 0 {
		return "", errors.New("importing upstream: no modules")
	}
	gitDir, err := t.Repo.GitDir(ctx)
	if err != nil {
		return "", err
	}
	// A private index per import: an interrupted import leaves no lock
	// that blocks the next one. The fixed name of earlier versions is
	// cleared too, and so are the private indexes (and their locks) of
	// imports a second Ctrl-C stopped before they could remove them: the
	// tool's lock keeps any other import out.
	stale, _ := filepath.Glob(filepath.Join(gitDir, "nomadfork-import*.index*"))
	for _, f := range stale {
		_ = os.Remove(f)
	}
	f, err := os.CreateTemp(gitDir, "nomadfork-import-*.index")
	if err != nil {
		return "", fmt.Errorf("importing upstream: %w", err)
	}
	index := f.Name()
	f.Close()
	os.Remove(index)
	defer func() {
		for _, suffix := range []string{"", ".lock", ".nested", ".nested.lock"} {
			_ = os.Remove(index + suffix)
		}
	}()
	tree, err := t.treeOf(ctx, gitDir, index, mods[0].Source)
	if err != nil {
		return "", err
	}
	for _, m := range mods[1:] {
		sub, err := t.treeOf(ctx, gitDir, index+".nested", m.Source)
		os.Remove(index + ".nested")
		if err != nil {
			return "", err
		}
		env := []string{"GIT_INDEX_FILE=" + index}
		if _, err := t.Repo.RunEnv(ctx, env, "read-tree", tree); err != nil {
			return "", err
		}
		if _, err := t.Repo.RunEnv(ctx, env, "read-tree", "--prefix="+m.Dir+"/", sub); err != nil {
			return "", fmt.Errorf("placing %s at %s/: %w (does the main module already have files there?)", m.Module, m.Dir, err)
		}
		out, err := t.Repo.RunEnv(ctx, env, "write-tree")
		if err != nil {
			return "", err
		}
		tree = strings.TrimSpace(out)
	}
	var extra []string
	for _, m := range mods[1:] {
		extra = append(extra, m.GoSum...)
	}
	if len(extra) > 0 {
		if tree, err = t.addGoSum(ctx, index, tree, extra); err != nil {
			return "", err
		}
		if tree, err = t.raiseRequires(ctx, index, tree, extra); err != nil {
			return "", err
		}
	}
	main := mods[0]
	var msg strings.Builder
	fmt.Fprintf(&msg, "upstream %s\n\nImported from the Go module proxy by nomadfork:\n\n", main.Version)
	for _, m := range mods {
		where := "."
		if m.Dir != "" {
			where = m.Dir + "/"
		}
		fmt.Fprintf(&msg, "%s %s %s %s\n", where, m.Path, m.Version, m.Sum)
	}
	if len(extra) > 0 {
		fmt.Fprintf(&msg, "\ngo.mod requires, and go.sum holds, the newer versions the nested modules\nrequire (verified by the checksum database):\n\n%s\n", strings.Join(extra, "\n"))
	}
	if main.Commit != "" {
		fmt.Fprintf(&msg, "\nUpstream-Commit: %s\n", main.Commit)
	}
	date := fmt.Sprintf("@%d +0000", main.Time.Unix())
	env := []string{
		"GIT_AUTHOR_NAME=" + git.IdentityName, "GIT_AUTHOR_EMAIL=" + git.IdentityEmail,
		"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date,
	}
	cmd := t.Repo.Command(ctx, "commit-tree", tree, "-F", "-")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(msg.String())
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("committing upstream tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// raiseRequires returns tree with the main module's go.mod requiring the
// versions of the go.sum lines sums (what `go mod tidy` does when a nested
// module, replaced by its directory, requires a newer version: without it
// the go command refuses with "updates to go.mod needed").
func (t *Tree) raiseRequires(ctx context.Context, index, tree string, sums []string) (string, error) {
	data, err := t.Repo.Run(ctx, "cat-file", "blob", tree+":go.mod")
	if err != nil {
		return "", fmt.Errorf("reading upstream go.mod: %w", err)
	}
	f, err := modfile.Parse("go.mod", []byte(data), nil)
	if err != nil {
		return "", fmt.Errorf("parsing upstream go.mod: %w", err)
	}
	for _, l := range sums {
		fields := strings.Fields(l)
		if len(fields) != 3 || strings.HasSuffix(fields[1], "/go.mod") {
			continue
		}
		for _, r := range f.Require {
			if r.Mod.Path == fields[0] && semver.Compare(r.Mod.Version, fields[1]) < 0 {
				if err := f.AddRequire(fields[0], fields[1]); err != nil {
					return "", err
				}
			}
		}
	}
	out, err := f.Format()
	if err != nil {
		return "", err
	}
	return t.replaceFile(ctx, index, tree, "go.mod", out)
}

// replaceFile returns tree with file's content replaced by data.
func (t *Tree) replaceFile(ctx context.Context, index, tree, file string, data []byte) (string, error) {
	cmd := t.Repo.Command(ctx, "hash-object", "-w", "--stdin")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", file, err)
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := t.Repo.RunEnv(ctx, env, "read-tree", tree); err != nil {
		return "", err
	}
	if _, err := t.Repo.RunEnv(ctx, env, "update-index", "--cacheinfo", "100644,"+strings.TrimSpace(string(out))+","+file); err != nil {
		return "", err
	}
	w, err := t.Repo.RunEnv(ctx, env, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(w), nil
}

// addGoSum returns tree with lines merged into its go.sum, sorted.
func (t *Tree) addGoSum(ctx context.Context, index, tree string, lines []string) (string, error) {
	old, err := t.Repo.Run(ctx, "cat-file", "blob", tree+":go.sum")
	if err != nil {
		return "", fmt.Errorf("reading upstream go.sum: %w", err)
	}
	all := strings.Split(strings.TrimRight(old, "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range all {
		seen[l] = true
	}
	for _, l := range lines {
		if seen[l] {
			continue
		}
		// Before the first line that sorts after it: upstream's lines keep
		// their order.
		i := len(all)
		for j := 0; j < len(all); j++ {
			if all[j] > l {
				i = j
				break
			}
		}
		all = append(all[:i], append([]string{l}, all[i:]...)...)
	}
	return t.replaceFile(ctx, index, tree, "go.sum", []byte(strings.Join(all, "\n")+"\n"))
}

// Fetch downloads and verifies the pinned modules, creates the repository
// if needed and imports the upstream commit into it, returning the commit.
// It does not touch the work tree's files or branches.
func (t *Tree) Fetch(ctx context.Context, p *pin.Pin) (string, error) {
	mods, err := upstream.Fetch(ctx, p, t.Log)
	if err != nil {
		return "", err
	}
	if err := upstream.CheckReplacements(mods, pin.DefaultFile); err != nil {
		return "", err
	}
	if err := t.Init(ctx); err != nil {
		return "", err
	}
	var base string
	err = progress.Step(t.Log, fmt.Sprintf("importing upstream %s into %s", p.Version(), t.Dir), func() error {
		base, err = t.ImportBase(ctx, mods)
		return err
	})
	return base, err
}

// treeOf writes the tree of every file under src, ignoring .gitignore rules
// (a module zip holds exactly the files upstream ships).
func (t *Tree) treeOf(ctx context.Context, gitDir, index, src string) (string, error) {
	r := &git.Repo{Dir: src, Env: []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + src, "GIT_INDEX_FILE=" + index}}
	if _, err := r.Run(ctx, "add", "--all", "--force", "."); err != nil {
		return "", fmt.Errorf("importing %s: %w", src, err)
	}
	out, err := r.Run(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", src, err)
	}
	return strings.TrimSpace(out), nil
}
