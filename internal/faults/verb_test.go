package faults

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

func TestConfigResolve(t *testing.T) {
	resolve := func(base string, args ...string) (*Plan, error) {
		var c Config
		fs := flag.NewFlagSet("faults", flag.ContinueOnError)
		c.Flags(fs, "/out")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return c.Resolve(experiment.Given(fs), base)
	}
	names := func(fs []Fault) string {
		var n []string
		for _, f := range fs {
			n = append(n, f.Name)
		}
		return strings.Join(n, ",")
	}
	p, err := resolve("v1.5.3")
	if err != nil || strings.Join(p.Labels, ",") != "v1.5.3,fork,"+experiment.RefVersion || !p.Pair || len(p.Faults) != len(Faults) || p.Dir != "/out" {
		t.Fatalf("defaults: %+v, %v", p, err)
	}
	// The line pinned at the reference version runs it once (issue 22).
	p, err = resolve(experiment.RefVersion)
	if err != nil || strings.Join(p.Labels, ",") != experiment.RefVersion+",fork" || strings.Join(p.Build, ",") != experiment.RefVersion+",fork" {
		t.Fatalf("on the %s line: %+v, %v", experiment.RefVersion, p, err)
	}
	// -smoke: the fork, plus the unpatched binary its upgrade runs beside.
	p, err = resolve("v1.5.3", "-smoke")
	if err != nil || strings.Join(p.Labels, ",") != "fork" || strings.Join(p.Build, ",") != "v1.5.3,fork" ||
		names(p.Faults) != "client-restart,upgrade" || p.Dir != "/out/smoke" {
		t.Fatalf("-smoke: %+v, %v", p, err)
	}
	bins, up := p.Select([]experiment.Binary{{Label: "v1.5.3"}, {Label: "fork"}, {Label: "seed", Variant: true}}, "v1.5.3")
	if len(bins) != 2 || bins[0].Label != "fork" || bins[1].Label != "seed" || up == nil || up.Label != "v1.5.3" {
		t.Fatalf("-smoke selects %+v beside %+v", bins, up)
	}
	// No tested binary: the pair scenarios are skipped, or refused when named.
	p, err = resolve("v1.5.3", "-versions", "v1.5.3")
	if err != nil || p.Pair || len(p.Notes) != 1 || strings.Contains(names(p.Faults), "upgrade") {
		t.Fatalf("-versions v1.5.3: %+v, %v", p, err)
	}
	if _, err := resolve("v1.5.3", "-versions", "v1.5.3", "-faults", "upgrade"); !errors.Is(err, ErrPairNeedsTested) {
		t.Fatalf("-faults upgrade without a tested binary: %v", err)
	}
	for args, want := range map[string]string{
		"-versions v1.6.1,v1.6.1": "v1.6.1 given twice",
		"-variant fork=/x":        "the label is taken",
		"-faults flood":           `unknown scenario "flood"`,
		"-n 1":                    "-n must be at least 3",
		"-deploy-timeout 0":       "-deploy-timeout and -start-timeout must be positive",
	} {
		if _, err := resolve("v1.5.3", strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
