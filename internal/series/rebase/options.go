package rebase

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

// The options of the verbs this package drives (rebase, drop) and their
// checks, which return cli.UsageError values; cmd/nomadfork declares
// their flags.

func usage(format string, args ...any) error { return cli.UsageError{Err: fmt.Errorf(format, args...)} }

// Options are the rebase verb's flags: Onto (with NewLine), Continue or
// Abort.
type Options struct {
	Onto                     string
	NewLine, Continue, Abort bool
	Nested                   upstream.NestedFlag
}

// Check refuses a combination of the flags that means nothing.
func (o Options) Check() error {
	n := 0
	for _, b := range []bool{o.Onto != "", o.Continue, o.Abort} {
		if b {
			n++
		}
	}
	switch {
	case n != 1:
		return usage("give exactly one of -onto <version>, -continue or -abort")
	case o.NewLine && o.Onto == "":
		return usage("-new-line goes with -onto <version>")
	case o.Onto != "" && !semver.IsValid(o.Onto):
		return usage("-onto %q is not a version such as v1.6.1", o.Onto)
	}
	return nil
}

// Run runs the rebase o says on the session's line: Abort (a report with
// Aborted), Continue, or Onto, whose refusals are usage errors or say what
// to do.
func (s *Session) Run(ctx context.Context, o Options) (*Report, error) {
	switch {
	case o.Abort:
		if err := s.Abort(ctx); err != nil {
			return nil, err
		}
		if s.Making {
			return &Report{Aborted: fmt.Sprintf("rebase aborted: line %s was not made and its work tree is removed", s.Line.Name)}, nil
		}
		return &Report{Aborted: "rebase aborted: work tree, pin and patches are as before"}, nil
	case o.Continue:
		return s.Continue(ctx)
	}
	from := s.Line.Name
	rep, err := s.Onto(ctx, o.Onto, o.NewLine, o.Nested)
	var exists *LineExistsError
	var notNewer *NotNewerError
	var left *WorkTreeLeftError
	var onLine *MoveOntoLineError
	switch {
	case errors.As(err, &onLine):
		return nil, cli.UsageError{Err: err}
	case errors.As(err, &exists):
		return nil, cli.UsageError{Err: hint.Errorf("line %s exists already: move it with %s", o.Onto, hint.Run("rebase", "-onto", "<version>").OnLine(o.Onto))}
	case errors.As(err, &notNewer):
		return nil, fmt.Errorf("-onto %s is not newer than line %s", o.Onto, from)
	case errors.As(err, &left):
		return nil, hint.Errorf("%s exists but line %s does not: if a rebase making it stopped, run %s or %s; otherwise move it away",
			left.WorkTree, o.Onto, hint.Run("rebase", "-continue").OnLine(o.Onto), hint.Run("rebase", "-abort").OnLine(o.Onto))
	}
	return rep, err
}

// Done says how a rebase that returned rep and err ended: with err, with
// the conflict it stopped at (an error that says what to do), aborted, or
// complete: its summary, the line it moved, the files it updated and the
// steps to take next.
func (s *Session) Done(rep *Report, err error) (hint.Message, error) {
	switch {
	case err != nil:
		return hint.Message{}, err
	case rep.Stopped != nil:
		return hint.Message{}, rep.Stopped.StopError()
	case rep.Aborted != "":
		return hint.Sprintf("%s", rep.Aborted), nil
	}
	moved := ""
	if rep.To != s.Line.Name {
		dst, err := s.Layout.At(rep.To)
		if err != nil {
			return hint.Message{}, err
		}
		moved = fmt.Sprintf("line %s is now line %s: %s\n", s.Line.Name, rep.To, dst.Dir)
	}
	on := func(verb string) hint.Step { return hint.Run(verb, "-line", rep.To) }
	return hint.Sprintf("%s\n%supdated %s/%s/ (pin and patches) and CHANGELOG.md; run %s, then %s before %s",
		rep.Summary(), moved, line.PatchesDir, rep.To, on("check"), on("baseline"), on("test")), nil
}

// DropOptions are the drop verb's patch and flags.
type DropOptions struct {
	Patch, Applied, PR string
	Verify             bool
}

// Parse parses args, the patch before, after or among the flags (as the
// usage line has it: drop [-line version] <patch> -applied-upstream
// <version>), into fs and o (which declared its flags there), and checks
// them.
func (o *DropOptions) Parse(fs *flag.FlagSet, args []string) error {
	var patches []string
	for {
		if err := cli.Parse(fs, args, len(args)); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		patches = append(patches, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(patches) {
	case 0:
		return usage("give one patch, by file name or number")
	case 1:
		o.Patch = patches[0]
	default:
		return usage("give one patch, by file name or number, not %d (%s)", len(patches), strings.Join(patches, " "))
	}
	if o.PR != "" {
		if u, err := url.Parse(o.PR); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" {
			return usage("-pr %q is not an https URL of a pull request", o.PR)
		}
	}
	if o.Verify && (o.PR == "" || o.Applied != "") {
		return usage("-verify takes -pr <url> and no -applied-upstream (the version is the rebase's target)")
	}
	return nil
}

// CheckVersion refuses an -applied-upstream that is no version.
func (o DropOptions) CheckVersion() error {
	if o.Applied == "" {
		return usage("give -applied-upstream <version>: the upstream version that carries the patch, such as v1.6.0 (or -verify -pr <url> during a rebase)")
	}
	if !semver.IsValid(o.Applied) {
		return usage("-applied-upstream %q is not a version such as v1.6.0", o.Applied)
	}
	return nil
}

// Summary says what the drop did and what is left to do.
func (d *Dropped) Summary() hint.Message {
	m := fmt.Sprintf("%s: Upstream-Status: applied %s; the next rebase onto %s or later drops it", d.Patch.Name, d.Version, d.Version)
	switch {
	case d.Applied:
		return hint.Sprintf("%s\napplied the edited %s to %s, so extract keeps it", m, d.Patch.Name, hint.WorkTree)
	case d.Tree:
		return hint.Sprintf("%s\nnote: %s does not hold the series as last applied, so %s is not applied there yet; run %s before the next extract (until then extract refuses to overwrite %s)",
			m, hint.WorkTree, d.Patch.Name, hint.Run("apply"), d.Patch.Name)
	}
	return hint.Sprintf("%s", m)
}
