// Package check verifies the patch series without touching the work tree:
// its metadata is valid, every patch applies exactly (no offset, no fuzz,
// re-export byte-identical), every prefix of the series builds and vets
// no worse than upstream, and every patch applies and builds on the base
// plus exactly the patches it declares with Depends-On (graph.go).
package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Options control Series.
type Options struct {
	// Repo is the work tree's repository; the check uses a linked work
	// tree of it, so the work tree itself is never touched.
	Repo *git.Repo
	// Base is the upstream commit.
	Base string
	// Scratch is the directory for the linked work tree.
	Scratch string
	// Scope is how much of the series is compiled.
	Scope Scope
	// Pinned is the pinned upstream version, for the Upstream-Status lint.
	Pinned string
	Log    io.Writer
}

// Scope is how much of the series Series compiles and vets.
type Scope int

const (
	// Full compiles and vets every prefix and each patch on its
	// dependencies; the whole series is also linked (go build).
	Full Scope = iota
	// Prefixes compiles and vets every prefix; each patch on its
	// dependencies is applied, not compiled.
	Prefixes
	// Tip builds and vets only the whole series (its last prefix); each
	// patch on its dependencies is applied, not compiled.
	Tip
	// None compiles nothing: metadata and exact application only.
	None
)

// Problems is the error Series returns: one line per problem.
type Problems []hint.Message

func (p Problems) Error() string { return p.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (p Problems) Render(r hint.Renderer) string {
	lines := make([]string, len(p))
	for i, m := range p {
		lines[i] = m.Render(r)
	}
	return fmt.Sprintf("check found %d problem(s):\n\t%s", len(p), strings.Join(lines, "\n\t"))
}

// Metadata lints every patch's trailers and subject.
func Metadata(patches []series.Patch) Problems {
	var probs Problems
	for _, p := range patches {
		data := p.Data
		md, err := p.Metadata()
		if err != nil {
			probs = append(probs, hint.Sprintf("%v", err))
			continue
		}
		for _, e := range md.Lint() {
			probs = append(probs, hint.Sprintf("%s: %v", p.Name, e))
		}
		if crlfEndings(data) {
			probs = append(probs, hint.Sprintf("%s has CRLF line endings (patch files use LF; an editor or checkout converted it): restore it (`git checkout -- %s`) or convert it (`sed -i 's/\\r$//' %s`)", p.Path, p.Path, p.Path))
		}
	}
	return probs
}

// crlfEndings reports whether a patch file's own lines end in CRLF (an
// editor or a checkout converted it): git format-patch ends its first
// line, "From <commit> <date>", with LF, whatever the diff holds.
func crlfEndings(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.HasSuffix(first, []byte("\r"))
}

// Series runs the checks and returns Problems if any fails.
func Series(ctx context.Context, patches []series.Patch, opts Options) error {
	probs := append(Metadata(patches), SeriesMetadata(patches, opts.Pinned)...)
	nodes, err := series.Graph(patches)
	if err != nil {
		return err
	}
	fmt.Fprint(opts.Log, FormatGraph(nodes))
	end := progress.Begin("creating the scratch work tree " + opts.Scratch)
	wt, cleanup, err := opts.Repo.Scratch(ctx, opts.Scratch, opts.Base)
	end()
	if err != nil {
		return err
	}
	defer cleanup()
	scratch := wt.Dir

	var commits []string
	for _, p := range patches {
		end := progress.Begin("applying " + p.Name + " exactly in the scratch work tree")
		commit, prob, err := applyExactly(ctx, wt, p)
		end()
		if err != nil {
			return err
		}
		if !prob.IsZero() {
			probs = append(probs, prob)
			break // later patches depend on this one
		}
		commits = append(commits, commit)
		fmt.Fprintf(opts.Log, "ok   %s applies exactly and re-exports byte-identically\n", p.Name)
	}
	if len(probs) > 0 {
		return probs
	}
	if opts.Scope == None {
		return graphResult(checkGraph(ctx, wt, opts.Base, nodes, false, opts.Log))
	}
	baseVet := map[string]map[string]int{}
	for i, commit := range commits {
		name := patches[i].Name
		// Vet compares the packages the patch changes; the whole series'
		// with Tip.
		from := commit + "^"
		if opts.Scope == Tip {
			if i < len(commits)-1 {
				continue
			}
			from = opts.Base
		}
		if _, err := wt.Run(ctx, "checkout", "--quiet", "--detach", commit); err != nil {
			return err
		}
		pkgs, err := worktree.ChangedPackages(ctx, wt, from, commit)
		if err != nil {
			return err
		}
		// Every prefix compiles; only the whole series links its
		// binaries too (linking them costs ~10 s a prefix).
		step, build := fmt.Sprintf("compiling prefix 1..%d (%s): go list -export ./...", i+1, name), compile
		if i == len(commits)-1 {
			step, build = fmt.Sprintf("building prefix 1..%d (%s): go build ./...", i+1, name), buildAll
		}
		err = progress.Step(opts.Log, step, func() error {
			return build(ctx, scratch, opts.Log)
		})
		if ctx.Err() != nil {
			// An interruption is not the patch's fault.
			return ctx.Err()
		}
		if err != nil {
			probs = append(probs, hint.Sprintf("%s: series prefix 1..%d does not build: %v", name, i+1, err))
			break
		}
		if len(pkgs) == 0 {
			continue
		}
		var newFindings []string
		err = progress.Step(opts.Log, fmt.Sprintf("vetting %s", strings.Join(pkgs, " ")), func() error {
			after, err := vet(ctx, scratch, pkgs)
			if err != nil {
				return err
			}
			before, err := baseFindings(ctx, wt, opts.Base, commit, scratch, pkgs, baseVet)
			if err != nil {
				return err
			}
			changed, err := wt.Lines(ctx, "diff", "--name-only", "--no-renames", from, commit)
			if err != nil {
				return err
			}
			newFindings = ownFindings(subtract(after, before), changed)
			return nil
		})
		if err != nil {
			return err
		}
		for _, f := range newFindings {
			probs = append(probs, hint.Sprintf("%s: go vet: %s (not reported on upstream)", name, f))
		}
	}
	if len(probs) == 0 {
		gp, err := checkGraph(ctx, wt, opts.Base, nodes, opts.Scope == Full, opts.Log)
		if err != nil {
			return err
		}
		probs = gp
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}

// applyExactly applies p without three-way merging and compares its
// re-export with the file. It returns the new commit, or a problem.
func applyExactly(ctx context.Context, wt *git.Repo, p series.Patch) (commit string, problem hint.Message, err error) {
	if err := wt.Am(ctx, p.Path, false); err != nil {
		var am *git.AmError
		if !errors.As(err, &am) {
			return "", hint.Message{}, err
		}
		_ = wt.AmAbort(ctx)
		return "", hint.Sprintf("%s: does not apply: %s", p.Name, oneLine(git.GitMessage(am.Output))), nil
	}
	commit, err = wt.Line(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", hint.Message{}, err
	}
	files, err := series.ExportFrom(ctx, wt, commit+"^", commit, p.Number)
	if err != nil {
		return "", hint.Message{}, err
	}
	want := p.Data
	if len(files) != 1 {
		return "", hint.Sprintf("%s: applying it made %d commits", p.Name, len(files)), nil
	}
	got := files[0].Data
	if bytes.Equal(got, want) {
		if files[0].Name != p.Name {
			return "", hint.Sprintf("%s: its subject exports as %s; run %s to rename it", p.Name, files[0].Name, hint.Run("extract")), nil
		}
		return commit, hint.Message{}, nil
	}
	return "", describeDrift(p.Name, want, got), nil
}

var hunkRE = regexp.MustCompile(`^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@`)

// describeDrift explains how a re-export differs from the patch file: only
// in hunk positions (the patch applies at an offset), only in index lines
// (upstream changed the files elsewhere), or in content.
func describeDrift(name string, want, got []byte) hint.Message {
	refresh := func(format string, args ...any) hint.Message {
		return hint.Sprintf(format+"; run %s and %s to refresh it", append(args, hint.Run("apply"), hint.Run("extract"))...)
	}
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	if len(wl) == len(gl) {
		firstHunk, firstIndex, other := -1, -1, -1
		for i := range wl {
			switch {
			case wl[i] == gl[i]:
			case hunkRE.MatchString(wl[i]) && hunkRE.MatchString(gl[i]) && hunkTail(wl[i]) == hunkTail(gl[i]):
				if firstHunk < 0 {
					firstHunk = i
				}
			case strings.HasPrefix(wl[i], "index ") && strings.HasPrefix(gl[i], "index "):
				if firstIndex < 0 {
					firstIndex = i
				}
			default:
				if other < 0 {
					other = i
				}
			}
		}
		switch {
		case other < 0 && firstHunk >= 0:
			return refresh("%s: applies only with an offset (line %d: patch says %q, upstream has it at %q)",
				name, firstHunk+1, hunkHead(wl[firstHunk]), hunkHead(gl[firstHunk]))
		case other < 0 && firstIndex >= 0:
			return refresh("%s: upstream changed a patched file outside the hunks (line %d: %q became %q)",
				name, firstIndex+1, wl[firstIndex], gl[firstIndex])
		}
	}
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			return refresh("%s: re-export differs at line %d: patch has %q, re-export %q", name, i+1, wl[i], gl[i])
		}
	}
	return refresh("%s: re-export differs in length (%d vs %d lines)", name, len(wl), len(gl))
}

func hunkHead(l string) string { return hunkRE.FindString(l) }
func hunkTail(l string) string { return strings.TrimPrefix(l, hunkRE.FindString(l)) }

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\n", "; ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

func goCmd(ctx context.Context, dir string, log io.Writer, args ...string) error {
	// What it prints on stdout goes to log; its stderr only into the error.
	out, err := gocmd.Cmd{Dir: dir, Env: build.GoEnv()}.Output(ctx, args...)
	if log != nil {
		log.Write(out)
	}
	return err
}

// buildAll builds every package of the tree in dir, linking its
// commands.
func buildAll(ctx context.Context, dir string, log io.Writer) error {
	return goCmd(ctx, dir, log, "build", "./...")
}

// compile compiles every package of the tree in dir, main packages
// included, without linking: `go list -export` runs the compile step of
// `go build` (and shares its cache) and fails on the same errors.
func compile(ctx context.Context, dir string, _ io.Writer) error {
	return goCmd(ctx, dir, io.Discard, "list", "-export", "-f", "{{.Export}}", "./...")
}

var vetLineRE = regexp.MustCompile(`^(vet: )?(.+?\.go):[0-9]+(?::[0-9]+)?: (.*)$`)

// vet runs go vet and returns its findings as "file: message" counts, with
// positions dropped so that findings moved by a patch still compare equal.
func vet(ctx context.Context, dir string, pkgs []string) (map[string]int, error) {
	out, err := build.Go(ctx, dir, append([]string{"vet"}, pkgs...)...)
	findings := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		if m := vetLineRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			// "vet: " marks type-checking errors; keep it in the key.
			findings[m[1]+m[2]+": "+m[3]]++
		}
	}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && len(findings) > 0) {
		return nil, fmt.Errorf("go vet %s: %w\n%s", strings.Join(pkgs, " "), err, out)
	}
	return findings, nil
}

// baseFindings returns go vet's findings for pkgs on the upstream commit,
// caching per package; packages that do not exist upstream have none.
func baseFindings(ctx context.Context, wt *git.Repo, base, back, dir string, pkgs []string, cache map[string]map[string]int) (map[string]int, error) {
	var missing []string
	for _, p := range pkgs {
		if _, ok := cache[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		if _, err := wt.Run(ctx, "checkout", "--quiet", "--detach", base); err != nil {
			return nil, err
		}
		for _, p := range missing {
			cache[p] = map[string]int{}
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				continue
			}
			f, err := vet(ctx, dir, []string{p})
			if err != nil {
				return nil, fmt.Errorf("vetting upstream: %w", err)
			}
			cache[p] = f
		}
		if _, err := wt.Run(ctx, "checkout", "--quiet", "--detach", back); err != nil {
			return nil, err
		}
	}
	all := map[string]int{}
	for _, p := range pkgs {
		for k, v := range cache[p] {
			all[k] += v
		}
	}
	return all, nil
}

// ownFindings keeps the findings a patch can have caused: those in files it
// changes, and type-checking errors anywhere. go vet replays cached results
// for unchanged packages inconsistently, so upstream's own findings in files
// the patch does not touch are not always subtracted. Findings the patch
// cannot have caused must not fail the check.
func ownFindings(findings, changed []string) []string {
	touched := map[string]bool{}
	for _, f := range changed {
		touched[f] = true
	}
	var out []string
	for _, f := range findings {
		file, _, _ := strings.Cut(f, ": ")
		if touched[file] || strings.HasPrefix(f, "vet: ") {
			out = append(out, f)
		}
	}
	return out
}

func subtract(after, before map[string]int) []string {
	var out []string
	for k, n := range after {
		if n > before[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
