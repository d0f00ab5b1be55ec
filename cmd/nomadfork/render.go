package main

import (
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// renderer is the one renderer of the hints the internal packages give
// (hint values): a step is the command line the user runs, with -line
// when it works on a line other than the default one; the work tree is
// the selected line's, relative to the repository.
type renderer struct{ e *env }

func (a renderer) Command(s hint.Step) string {
	args := append([]string{"nomadfork", s.Verb}, s.Args...)
	given := false // -line among the arguments already
	for _, arg := range s.Args {
		given = given || arg == "-line" || arg == "--line" || strings.HasPrefix(arg, "-line=") || strings.HasPrefix(arg, "--line=")
	}
	if ln := a.lineOf(s); ln != "" && !given && s.Verb != "sandbox" && s.Verb != "help" {
		args = append(args, "-line", ln)
	}
	return "`" + strings.Join(args, " ") + "`"
}

// lineOf is the line s works on when it is not the default one.
func (a renderer) lineOf(s hint.Step) string {
	e := a.e
	if e == nil {
		return s.Line
	}
	if s.Line != "" {
		if d, err := e.Layout.Default(); err == nil && d == s.Line {
			return ""
		}
		return s.Line
	}
	if e == nil || e.Line.Name == "" || e.Line.Default {
		return ""
	}
	return e.Line.Name
}

func (a renderer) WorkTree() string {
	if a.e == nil {
		return "nomad/"
	}
	return a.e.relWorkTree()
}

// say renders m for the selected line.
func (e *env) say(m hint.Message) string { return m.Render(renderer{e}) }

// command is s as a command line for the selected line, quoted.
func (e *env) command(s hint.Step) string { return renderer{e}.Command(s) }

// render is err's message with its hints rendered for the selected line.
func (e *env) render(err error) string { return hint.Render(err, renderer{e}) }

// printed prints m, rendered for the selected line, unless err or m is
// empty; it returns err.
func (e *env) printed(m hint.Message, err error) error {
	if err == nil && !m.IsZero() {
		fmt.Fprintln(e.Stdout, e.say(m))
	}
	return err
}
