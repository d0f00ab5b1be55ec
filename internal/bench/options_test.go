package bench

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench/cluster"
)

// TestOptionsRoundTrip renders options as flags and parses them back: the
// scenario's options cross into the sandbox through the one declaration.
func TestOptionsRoundTrip(t *testing.T) {
	o := Options{
		Scenario: Scenario{Count: 30, Clients: 4, Topology: cluster.Single, Settle: 2 * time.Second,
			PhaseTimeout: time.Minute, StartTimeout: 90 * time.Second},
		Nomad: "/bin/nomad", Dir: "/run dir", Label: "fork", Round: 3, DataRoot: "/tmp/d",
	}
	got, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if got != o {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, o)
	}
	if _, err := ParseOptions([]string{"-dir", "/x"}); err == nil || !strings.Contains(err.Error(), "-nomad") {
		t.Errorf("missing -nomad: %v", err)
	}
	if _, err := ParseOptions([]string{"-nomad", "n", "-dir", "d", "-topology", "ring"}); err == nil {
		t.Error("unknown topology accepted")
	}
	if code := ScenarioMain([]string{"-dir", "/x"}, &strings.Builder{}, &strings.Builder{}); code != 2 {
		t.Errorf("missing -nomad: exit %d", code)
	}
}

func TestConfigResolve(t *testing.T) {
	parse := func(args ...string) (*Config, []string, string, error) {
		var c Config
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		c.Flags(fs, "/out")
		if err := fs.Parse(args); err != nil {
			return nil, nil, "", err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		labels, dir, err := c.Resolve(set, "v1.5.3")
		return &c, labels, dir, err
	}
	c, labels, dir, err := parse()
	if err != nil || strings.Join(labels, ",") != "v1.5.3,fork,v1.6.1" || dir != "/out" {
		t.Fatalf("defaults: %v %v %v", labels, dir, err)
	}
	if c.Topology != cluster.Multi || c.Rounds != DefaultRounds || c.Count != 300 || !c.Warmup {
		t.Errorf("headline defaults %+v", c)
	}
	c, labels, dir, _ = parse("-quick")
	if c.Topology != cluster.Single || c.Rounds != 1 || c.Count != 30 || c.Warmup || len(labels) != 2 || dir != "/out/quick" {
		t.Errorf("-quick: %+v %v %s", c, labels, dir)
	}
	c, _, dir, _ = parse("-quick", "-topology", "multi", "-n", "20", "-warmup")
	if c.Topology != cluster.Multi || c.Count != 20 || !c.Warmup || dir != "/out/quick-multi" {
		t.Errorf("-quick keeps given flags: %+v %s", c, dir)
	}
	// A relative -o is made absolute: the agents run elsewhere.
	c, _, dir, _ = parse("-o", "rel/out")
	if wd, _ := os.Getwd(); dir != filepath.Join(wd, "rel/out") || c.Out != dir {
		t.Errorf("-o rel/out: dir %s, Out %s", dir, c.Out)
	}
	for args, want := range map[string]string{
		"-versions v1.0.0,bogus": `unknown label "bogus"`,
		"-versions fork,fork":    "fork given twice",
		"-n 0":                   "at least 1",
	} {
		if _, _, _, err := parse(strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
