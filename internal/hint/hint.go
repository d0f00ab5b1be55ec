// Package hint is the advice the tool's packages give, as values: the
// commands of the tool they tell the user to run next are Steps (a verb
// and its arguments), the selected line's work tree is WorkTree, and the
// prose around them is a Message. The packages never write a command line
// of the tool themselves: cmd/nomadfork renders Messages, and errors that
// carry them, with the line the user selected (Render).
package hint

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// A Step is a command of the tool to run next: its verb and arguments. Line
// names the line it works on when that is not the line the command that
// advises it works on (empty: the same line); the renderer adds -line.
type Step struct {
	Verb string
	Args []string
	Line string
}

// Run returns the step verb args on the selected line.
func Run(verb string, args ...string) Step { return Step{Verb: verb, Args: args} }

// OnLine returns s on line ln.
func (s Step) OnLine(ln string) Step {
	s.Line = ln
	return s
}

// String is s as the verb and its arguments, without the program's name
// or the line: what a Message says when nothing renders it.
func (s Step) String() string {
	return "`" + strings.Join(append([]string{s.Verb}, s.Args...), " ") + "`"
}

// workTree is the type of WorkTree.
type workTree struct{}

// WorkTree stands, in a Message, for the selected line's work tree
// directory as the user names it (nomad/ or lines/<version>/nomad/).
var WorkTree workTree

func (workTree) String() string { return "the work tree" }

// A Renderer writes the values of a Message as the user reads them.
type Renderer interface {
	// Command is s as a command line the user can run, quoted.
	Command(s Step) string
	// WorkTree is the selected line's work tree directory.
	WorkTree() string
}

// A Message is text that names steps or the work tree: a format and its
// arguments, as for fmt.Sprintf, rendered when it is read. The zero
// Message is empty.
type Message struct {
	format string
	args   []any
}

// Sprintf returns the message format with args; a Step, WorkTree, a
// Message or an error carrying Messages among args is rendered in place.
func Sprintf(format string, args ...any) Message { return Message{format, args} }

// IsZero reports whether m is empty.
func (m Message) IsZero() bool { return m.format == "" && len(m.args) == 0 }

// String is m rendered without a Renderer: steps as their verbs.
func (m Message) String() string { return m.Render(nil) }

// Steps returns the steps m names, in order.
func (m Message) Steps() []Step {
	var out []Step
	for _, a := range m.args {
		switch a := a.(type) {
		case Step:
			out = append(out, a)
		case Message:
			out = append(out, a.Steps()...)
		}
	}
	return out
}

// Render is m with its steps and work tree written by r (nil: by their
// String methods).
func (m Message) Render(r Renderer) string {
	// %w wraps in Errorf only: here it is the wrapped error's message.
	return fmt.Sprintf(strings.ReplaceAll(m.format, "%w", "%v"), renderArgs(m.args, r)...)
}

func renderArgs(args []any, r Renderer) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case Step:
			if r == nil {
				out[i] = a.String()
			} else {
				out[i] = r.Command(a)
			}
		case workTree:
			if r == nil {
				out[i] = a.String()
			} else {
				out[i] = r.WorkTree()
			}
		case Message:
			out[i] = a.Render(r)
		case error:
			out[i] = renderedError{a, r}
		default:
			out[i] = a
		}
	}
	return out
}

// renderedError is an argument error whose message is rendered by r, and
// which still wraps it (for %w).
type renderedError struct {
	err error
	r   Renderer
}

func (e renderedError) Error() string { return Render(e.err, e.r) }
func (e renderedError) Unwrap() error { return e.err }

// Error is an error whose message is a Message.
type Error struct {
	Message
	wrapped []error
}

// Errorf is fmt.Errorf whose message is a Message: args may hold Steps
// and WorkTree, and %w wraps as for fmt.Errorf.
func Errorf(format string, args ...any) error {
	e := &Error{Message: Sprintf(format, args...)}
	switch u := fmt.Errorf(format, args...).(type) {
	case interface{ Unwrap() error }:
		e.wrapped = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		e.wrapped = u.Unwrap()
	}
	return e
}

func (e *Error) Error() string   { return e.Message.String() }
func (e *Error) Unwrap() []error { return e.wrapped }

// Render renders its message with r.
func (e *Error) Render(r Renderer) string { return e.Message.Render(r) }

// renderable is an error whose message holds Messages.
type renderable interface {
	error
	Render(r Renderer) string
}

// Render is err's message with the Messages of the errors in its chain
// rendered by r. An error that wraps one carrying Messages without
// rendering it itself (fmt.Errorf's) has the wrapped error's message in
// its own: that part is replaced by its rendering.
func Render(err error, r Renderer) string {
	if err == nil {
		return ""
	}
	if x, ok := err.(renderable); ok {
		return x.Render(r)
	}
	msg := err.Error()
	var inner []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if w := u.Unwrap(); w != nil {
			inner = []error{w}
		}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	for _, w := range inner {
		if !carries(w) {
			continue
		}
		plain, rendered := w.Error(), Render(w, r)
		if plain != rendered {
			msg = strings.Replace(msg, plain, rendered, 1)
		}
	}
	return msg
}

// carries reports whether err's chain holds an error rendering Messages.
func carries(err error) bool {
	var x renderable
	return errors.As(err, &x)
}

// Steps returns the steps err's message names, in order: for tests, and
// for callers that act on the advice.
func Steps(err error) []Step {
	var rec recorder
	Render(err, &rec)
	return rec.steps
}

// recorder is a Renderer that records the steps it renders.
type recorder struct{ steps []Step }

func (r *recorder) Command(s Step) string {
	r.steps = append(r.steps, s)
	return s.String()
}

func (r *recorder) WorkTree() string { return WorkTree.String() }

// Fprint writes m and a newline to w, rendered by w when w is also a
// Renderer (as the writer cmd/nomadfork gives the packages is), else by
// the String methods.
func Fprint(w io.Writer, m Message) error {
	_, err := io.WriteString(w, Text(w, m)+"\n")
	return err
}

// Text is m rendered by w when w is a Renderer (as Fprint renders it),
// else by the String methods: for text a package hands to another that
// writes it to w.
func Text(w io.Writer, m Message) string {
	r, _ := w.(Renderer)
	return m.Render(r)
}
