// Package flagargs renders options declared as flags into command-line
// arguments and parses them back. The bench and the fault scenarios pass
// their options this way to the copy of the tool they run in the sandbox.
package flagargs

import (
	"flag"
	"fmt"
	"io"
)

// Render returns the flags declare declares, with their current values, as
// arguments of the form -name=value, in name order.
func Render(declare func(*flag.FlagSet)) []string {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	declare(fs)
	var args []string
	fs.VisitAll(func(f *flag.Flag) { args = append(args, "-"+f.Name+"="+f.Value.String()) })
	return args
}

// Parse parses args into the flags declare declares; the command name
// prefixes the errors. Positional arguments are refused, and so is a
// missing value of any flag named in required.
func Parse(name string, args []string, declare func(*flag.FlagSet), required ...string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error says it all; no usage text
	declare(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, r := range required {
		f := fs.Lookup(r)
		if f == nil {
			return fmt.Errorf("no flag -%s to require", r)
		}
		if f.Value.String() == "" {
			return fmt.Errorf("-%s is required", r)
		}
	}
	return nil
}
