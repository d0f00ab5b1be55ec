package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"
)

func TestClassify(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		kind Kind
		code int
	}{
		{context.Background(), nil, Done, 0},
		{context.Background(), flag.ErrHelp, Done, 0},
		{context.Background(), FlagError{errors.New("bad flag")}, Done, 2},
		{context.Background(), fmt.Errorf("x: %w", UsageError{errors.New("bad")}), Usage, 2},
		{context.Background(), ExitCode(3), Exit, 3},
		{context.Background(), errors.New("boom"), Failed, 1},
		// An interruption wins over a usage error it caused.
		{cancelled, UsageError{errors.New("unknown line")}, Interrupted, ExitInterrupted},
		// The exit code of a command a signal ended (the sandbox's) is
		// the verb's outcome, not an interruption to resume.
		{cancelled, ExitCode(3), Exit, 3},
	} {
		end := Classify(tc.ctx, tc.err)
		if end.Kind != tc.kind || end.Code != tc.code {
			t.Errorf("Classify(%v) = kind %d code %d, want kind %d code %d", tc.err, end.Kind, end.Code, tc.kind, tc.code)
		}
	}
}

func TestAtMostOne(t *testing.T) {
	a, b, c := Flag{Name: "a"}, Flag{Name: "b"}, Flag{Name: "c"}
	on := func(f Flag) Flag { f.Set = true; return f }
	for _, tc := range []struct {
		flags []Flag
		want  string
	}{
		{[]Flag{a, b, c}, ""},
		{[]Flag{a, on(b), c}, ""},
		{[]Flag{on(a), b, on(c)}, "-a, -b and -c exclude each other"},
		{[]Flag{on(a), on(b)}, "-a and -b exclude each other"},
	} {
		err := AtMostOne(tc.flags...)
		var usage UsageError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("AtMostOne(%v) = %v, want nil", tc.flags, err)
		case tc.want != "" && (!errors.As(err, &usage) || err.Error() != tc.want):
			t.Errorf("AtMostOne(%v) = %#v, want the UsageError %q", tc.flags, err, tc.want)
		}
	}
}

// testProgram is a program whose runs record what happened.
func testProgram(log *[]string) *Program[string] {
	p := &Program[string]{Name: "prog",
		Usage: func() string { return "usage\n" },
		Env:   func(root string, _, _ io.Writer) (string, error) { return "env", nil },
		Lock: func(_ string, verb string) (func(), error) {
			*log = append(*log, "lock "+verb)
			return func() { *log = append(*log, "release") }, nil
		},
		Recover: func(context.Context, string, bool) error { *log = append(*log, "recover"); return nil },
		Report: func(_ string, end End, _ io.Writer) {
			*log = append(*log, fmt.Sprintf("report %d %s", end.Kind, end.Verb))
		},
	}
	p.Register(Command[string]{Name: "locked", Lock: true, Run: func(_ context.Context, env string, args []string) error {
		*log = append(*log, "run "+env)
		return nil
	}})
	p.Register(Command[string]{Name: "fails", Run: func(context.Context, string, []string) error { return errors.New("boom") }})
	p.Register(Command[string]{Name: "bare", Bare: true, Run: func(context.Context, string, []string) error { return ExitCode(4) }})
	p.Register(Command[string]{Name: "__hidden", Entry: func([]string, io.Writer, io.Writer) int { return 0 }})
	return p
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		log  string
	}{
		{[]string{"locked"}, 0, "[lock locked recover run env release]"},
		{[]string{"help", "locked"}, 0, "[run env]"},
		{[]string{"fails"}, 1, "[recover report 9 fails]"},
		{[]string{"bare"}, 4, "[report 8 bare]"},
		{[]string{"nope"}, 2, "[report 1 nope]"},
		{[]string{"__hidden"}, 2, "[report 1 __hidden]"},
		{nil, 2, "[]"},
	} {
		var log []string
		var out bytes.Buffer
		code := testProgram(&log).Run(context.Background(), tc.args, &out, &out)
		if got := fmt.Sprint(log); code != tc.code || got != tc.log {
			t.Errorf("Run(%q) = %d, %s; want %d, %s", tc.args, code, got, tc.code, tc.log)
		}
	}
}

func TestParseExtraArguments(t *testing.T) {
	fs := flag.NewFlagSet("verb", flag.ContinueOnError)
	err := Parse(fs, []string{"a", "b"}, 1)
	var u UsageError
	if !errors.As(err, &u) || err.Error() != "unexpected arguments: b (see `help verb`)" {
		t.Errorf("Parse: %v, want a usage error naming b and the help step", err)
	}
}

func TestFlagValues(t *testing.T) {
	got := FlagValues([]string{"-v", "-line", "v1.0.2", "--onto=v1.6.1", "x", "-new-line", "-force=true", "-line"}, []string{"line", "onto"}, []string{"new-line"})
	if fmt.Sprint(got) != "map[line:v1.0.2 new-line:true onto:v1.6.1]" {
		t.Errorf("FlagValues: %v", got)
	}
}

// A verb's flag set prints its usage line, its long help and its flags on
// -h; Visible lists the commands in the order given, not the hidden ones.
func TestFlagSetAndVisible(t *testing.T) {
	var p Program[int]
	p.Register(Command[int]{Name: "b", Help: "Does b.\n", Run: func(context.Context, int, []string) error { return nil }})
	p.Register(Command[int]{Name: "a", Run: func(context.Context, int, []string) error { return nil }})
	p.Register(Command[int]{Name: "__h", Entry: func([]string, io.Writer, io.Writer) int { return 0 }})
	var out bytes.Buffer
	fs := p.FlagSet("b", "usage: prog b [-x] ", &out)
	fs.Bool("x", false, "the x flag")
	if err := Parse(fs, []string{"-h"}, 0); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if want := "usage: prog b [-x]\n\nDoes b.\n\nflags:\n  -x\tthe x flag\n"; out.String() != want {
		t.Errorf("usage:\n%q\nwant\n%q", out.String(), want)
	}
	var names []string
	for _, c := range p.Visible([]string{"a", "__h", "b", "c"}) {
		names = append(names, c.Name)
	}
	if fmt.Sprint(names) != "[a b]" {
		t.Errorf("Visible = %v, want [a b]", names)
	}
}
