package experiment

import (
	"strings"
	"testing"
)

func TestResolveLabels(t *testing.T) {
	for _, tc := range []struct {
		versions, base string
		defaults       []string
		variants       []Variant
		want, err      string
	}{
		{base: "v1.5.3", want: "v1.5.3,fork," + RefVersion},
		// The line pinned at the reference version runs it once (issue 22).
		{base: RefVersion, want: RefVersion + ",fork"},
		{base: "v1.5.3", defaults: []string{ForkLabel}, want: "fork"},
		{versions: "fork, v1.5.6", base: "v1.5.3", defaults: []string{ForkLabel}, want: "fork,v1.5.6"},
		{versions: "v1.6.1,v1.6.1", base: "v1.6.1", err: "v1.6.1 given twice"},
		{versions: "fork,bogus", base: "v1.5.3", err: `unknown label "bogus"`},
		{base: "v1.5.3", variants: []Variant{{"fork", "/x"}}, err: "-variant fork: the label is taken"},
		{base: "v1.5.3", variants: []Variant{{"a", "/x"}, {"a", "/y"}}, err: "-variant a: the label is taken"},
		{base: "v1.5.3", defaults: []string{}, err: "nothing to run"},
		{base: "v1.5.3", defaults: []string{}, variants: []Variant{{"a", "/x"}}, want: ""},
	} {
		got, err := ResolveLabels(tc.versions, tc.base, tc.defaults, tc.variants)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: got %v, %v; want error %q", tc, got, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("%+v: got %v, %v; want %s", tc, got, err, tc.want)
		}
	}
}
