package bench

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// TestOptionsRoundTrip renders options as flags and parses them back: the
// scenario's options cross into the sandbox through the one declaration.
func TestOptionsRoundTrip(t *testing.T) {
	o := Options{
		Scenario: Scenario{Workloads: []string{"rolling", "drain"}, Sizes: Sizes{"drain": 7, "rolling": 30},
			Clients: 4, Topology: cluster.Single,
			Timing: experiment.Timing{Settle: 2 * time.Second, PhaseTimeout: time.Minute, StartTimeout: 90 * time.Second}},
		RunOptions: experiment.RunOptions{Nomad: "/bin/nomad", Dir: "/run dir", Label: "fork", DataRoot: "/tmp/d"}, Round: 3,
	}
	got, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, o) {
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
	if topologiesName(c.Topologies) != "single-multi" || c.Rounds != DefaultRounds || c.Size("rolling") != SuiteSizes["rolling"] ||
		!c.Warmup || len(c.Workloads) != len(Workloads) {
		t.Errorf("suite defaults %+v", c)
	}
	c, labels, dir, _ = parse("-quick")
	if topologiesName(c.Topologies) != "single" || c.Rounds != 1 || c.Size("rolling") != SmokeSizes["rolling"] || c.Warmup ||
		strings.Join(labels, ",") != "fork" || dir != "/out/quick" {
		t.Errorf("-quick: %+v %v %s", c, labels, dir)
	}
	c, _, dir, _ = parse("-quick", "-topology", "multi", "-n", "drain=20", "-warmup", "-workload", "drain")
	if c.Topology != cluster.Multi || c.Size("drain") != 20 || c.Size("dispatch") != SmokeSizes["dispatch"] || !c.Warmup ||
		dir != "/out/quick-multi" || strings.Join(c.Workloads, ",") != "drain" {
		t.Errorf("-quick keeps given flags: %+v %s", c, dir)
	}
	// The line pinned at the reference version runs it once (issue 22).
	if _, labels, _, _ = parse(); strings.Join(experiment.DefaultLabels(experiment.RefVersion), ",") != experiment.RefVersion+",fork" {
		t.Errorf("labels on the %s line: %v", experiment.RefVersion, experiment.DefaultLabels(experiment.RefVersion))
	}
	// A relative -o is made absolute: the agents run elsewhere.
	c, _, dir, _ = parse("-o", "rel/out")
	if wd, _ := os.Getwd(); dir != filepath.Join(wd, "rel/out") || c.Out != dir {
		t.Errorf("-o rel/out: dir %s, Out %s", dir, c.Out)
	}
	for args, want := range map[string]string{
		"-versions v1.0.0,bogus":  `unknown label "bogus"`,
		"-versions fork,fork":     "fork given twice",
		"-n drain=0":              "at least 1",
		"-topology ring":          "unknown topology",
		"-topology single,single": "given twice",
		"-workload nope":          "unknown workload",
	} {
		if _, _, _, err := parse(strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
