package main

import (
	"context"
	"flag"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runContract(ctx context.Context, e *env, args []string) error {
	var c harness.ContractOptions
	return harnessVerb(ctx, e, "contract", "[-v] [-retry=false] [-keep] [-pkgs dirs]", args, &c, contractFlags, &c.Verbose,
		func(o harness.Options) error { return harness.Contract(ctx, o, c.Retry, c.Keep, c.Pkgs) })
}

// contractFlags declares contract's flags on fs, into c.
func contractFlags(fs *flag.FlagSet, c *harness.ContractOptions) {
	verboseFlag(fs, &c.Verbose)
	retryFlag(fs, &c.Retry)
	fs.BoolVar(&c.Keep, "keep", false, "keep the contract tree in out/contract/nomad for inspection")
	fs.Func("pkgs", "run only the packages in or under these comma-separated `dirs` of the tree (client,acl); default: every package whose tests the series modifies", func(v string) error {
		c.Pkgs = nil
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				c.Pkgs = append(c.Pkgs, d)
			}
		}
		return nil
	})
}

func init() { register(command{Name: "contract", Run: runContract, Lock: true}) }
