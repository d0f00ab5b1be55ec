package flagargs

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

type options struct {
	Name  string
	Count int
	Wait  time.Duration
}

func (o *options) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Name, "name", o.Name, "")
	fs.IntVar(&o.Count, "n", o.Count, "")
	fs.DurationVar(&o.Wait, "wait", o.Wait, "")
}

func TestRenderParseRoundTrip(t *testing.T) {
	in := options{Name: "a b=c", Count: 7, Wait: 90 * time.Second}
	args := Render(in.flags)
	if got := fmt.Sprint(args); got != "[-n=7 -name=a b=c -wait=1m30s]" {
		t.Errorf("Render = %s", got)
	}
	var out options
	if err := Parse("run", args, out.flags, "name"); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Errorf("parsed %+v, want %+v", out, in)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		required []string
		want     string
	}{
		{[]string{"-n=1", "extra"}, nil, `unexpected arguments ["extra"]`},
		{[]string{"-n=x"}, nil, "invalid value"},
		{[]string{"-n=1"}, []string{"name"}, "-name is required"},
		{nil, []string{"missing"}, "no flag -missing"},
	} {
		var o options
		err := Parse("run", tc.args, o.flags, tc.required...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q, %q) = %v, want %q", tc.args, tc.required, err, tc.want)
		}
	}
}
