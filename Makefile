# Thin entry points: each target runs verbs of bin/nomadfork (cmd/nomadfork, one
# file per verb; the logic lives in internal/, see docs/design.md).
NOMADFORK := bin/nomadfork
# STEP runs a recipe step, printing its start and how long it took.
STEP := scripts/step.sh
# The maintained line to work on: `make LINE=v1.5.6`, `make test LINE=v1.5.6`.
# Default: the line patches/default-line names.
LINE ?= $(shell cat patches/default-line)
L := -line $(LINE)
# Newer upstream versions `make test` reports the default line against
# (other lines: targets.json's versions newer than theirs; every line:
# make status-doc).
STATUS_AGAINST := v1.5.5,v1.5.6,v1.6.1
STATUS_FLAGS = $(if $(filter $(LINE),$(shell cat patches/default-line)),-against $(STATUS_AGAINST))
# The reverse dependencies' baseline of the line (make test-full).
REVDEPS_BASELINE = patches/$(LINE)/baseline/revdeps-$(LINE).tsv
# The packages whose upstream tests `make test`'s contract runs: the client
# and the quick suites the security patches touch. The server package
# (nomad/, tens of minutes on 2 cores) and command/agent run in `make
# test-full`'s contract; the series' own tests of those packages run in
# `make test` (nomadfork test).
CONTRACT_QUICK := client,acl,nomad/structs,helper
# Every maintained line (a directory patches/<version>/ with a pin).
LINES = $(patsubst patches/%/upstream.json,%,$(wildcard patches/v*/upstream.json))

.PHONY: all deps tool apply build release check check-lines check-lines-quick check-variants test test-full test-tool test-sim test-sim-lines status-doc bench faults scale vulns vulns-doc commands-doc clean

# `make`: apply the line's series to its pinned upstream and build bin/nomad.
all: build

deps:
	@scripts/deps.sh

tool:
	go build -o $(NOMADFORK) ./cmd/nomadfork

apply: tool
	$(NOMADFORK) apply $(L)

# `make`: bin/nomad built like upstream's official release (-tags ui,release,
# cgo, -trimpath) with the pinned Go toolchain (docs/release.md).
build: apply
	$(NOMADFORK) build $(L)

# `make release`: dist/<version>+fork.N/ with the linux/amd64 and linux/arm64
# zips and .debs, RELEASE.md and SHA256SUMS (docs/release.md).
release: deps apply
	nice -n 10 $(NOMADFORK) release $(L)

check: tool
	$(NOMADFORK) check $(L)

# `make check-lines`: `nomadfork check` (apply exactly, compile and vet every
# prefix and every patch on its dependencies, link the whole series) on
# every maintained line. `make test` runs check-lines-quick, to stay under
# 45 minutes on a fresh machine: `check -no-build` (apply exactly, each
# patch on its dependencies applied, re-export byte for byte, metadata) on
# every line; compiling every prefix (cold: the longest step of make test,
# over 30 minutes on a loaded 2-core machine on 2026-12-06) is left to
# `make test-full`, which runs check-lines. make test still compiles the
# whole series (build) and vets and tests its client packages (test).
check-lines: tool
	@for l in $(LINES); do echo "$(NOMADFORK) check -line $$l"; $(NOMADFORK) check -line $$l || exit 1; done

check-lines-quick: tool
	@for l in $(LINES); do \
		$(STEP) $(NOMADFORK) check -no-build -line $$l || exit 1; \
	done

# `make check-variants`: each rule variant the suites build still applies
# to the fork's HEAD, so `make bench` and `make scale` don't stop after a
# patch changes. scripts/build-variant.sh -check passes over a diff kept
# for the record (docs/bench/variants/README.md). Part of `make test`.
VARIANTS = $(basename $(notdir $(wildcard docs/bench/variants/*.diff)))
check-variants: apply
	@for v in $(VARIANTS); do $(STEP) scripts/build-variant.sh -check $$v || exit 1; done

# `make status-doc`: every line's series against the newer versions
# targets.json names, written into docs/status.md between its status-per-line
# markers (read-only otherwise; fetches upstream).
status-doc: tool
	$(NOMADFORK) status -all-lines -doc

test-tool:
	$(STEP) go vet ./...
	$(STEP) go test -race -count=1 -timeout 30m ./...
	$(STEP) go -C simstate test -race -count=1 ./...

# `make test-sim`: sim/'s tests with -race in the sandbox, built against the
# line's work tree (another line's through a go.mod generated in
# out/sim/<line>/, -tags nomad_v1_6 from v1.6.0 on), with that tree's nomad
# (which upstream's helper/subproc needs) first on PATH.
test-sim: apply
	$(NOMADFORK) test -client=false $(L)

# `make test-sim-lines`: sim/'s tests on every maintained line (each line's
# work tree applied first). Part of `make test-full`.
test-sim-lines: tool
	@for l in $(LINES); do \
		echo "$(NOMADFORK) apply -line $$l && $(NOMADFORK) test -client=false -line $$l"; \
		$(NOMADFORK) apply -line $$l && $(NOMADFORK) test -client=false -line $$l || exit 1; \
	done

# `make test`: the tool's own tests, the series check on every line (each
# patch applied exactly and on its declared dependencies, re-exported byte
# for byte; compiling every prefix is test-full's), the rule variants the
# suites build checked to apply (check-variants), bin/nomad built with the release
# flags and checked to serve the web UI (a dev agent in the sandbox), each PR's export applied to a
# fresh upstream tree with plain git am, upstream's client tests of the patched tree
# in the sandbox, upstream's unchanged tests against the patched code
# (contract), the reverse dependencies' tests type-checked, the status
# report against newer upstream versions, the benchmark's smoke tests
# (the fork on one cluster per topology: every workload of the suite at a
# small N on the single topology, rolling and drain on the multi one; each
# fails when its scenario did not happen: allocations queued, the drain
# finished, every dispatch completed...) and the
# fault scenarios' smoke test (client-restart on the fork: 0 lost updates,
# 0 duplicate runs, convergence; upgrade: a client swapped v1.5.3 → fork →
# v1.5.3 on its data dir keeps its allocations and task processes) and the scale simulation's (20 simulated
# nodes, 200 allocations: every one running on the servers, 0 lost
# updates, convergence; then the same with the simulators placed by a Nomad
# job, 2 instances × 10 nodes, on a placement cluster of its own), then `nomadfork vulns`: govulncheck against the
# pinned offline database, gated by the line's vulns baseline (docs/vulns.md).
# CI runs exactly this.
test: deps test-tool apply check-lines-quick check-variants
	$(STEP) $(NOMADFORK) build -check-ui $(L)
	$(STEP) $(NOMADFORK) export -verify -no-build $(L)
	$(STEP) $(NOMADFORK) test $(L)
	$(STEP) $(NOMADFORK) contract -pkgs $(CONTRACT_QUICK) $(L)
	$(STEP) $(NOMADFORK) revdeps $(L)
	$(STEP) $(NOMADFORK) status $(L) $(STATUS_FLAGS)
	$(STEP) $(NOMADFORK) bench -quick $(L)
	$(STEP) $(NOMADFORK) bench -quick -topology multi -workload rolling,drain $(L)
	$(STEP) $(NOMADFORK) faults -smoke $(L)
	$(STEP) $(NOMADFORK) scale -smoke $(L)
	$(STEP) $(NOMADFORK) scale -smoke -place job $(L)
	$(STEP) nice -n 10 $(NOMADFORK) vulns $(L)

# `make test-full`: `make test`, the full check on every line, each PR's
# export built, the release built and verified (a rebuild
# with the same SHA256SUMS; zips, ELF platforms, `nomad version` of each
# binary in the sandbox, arm64 under qemu-user; the .debs against upstream's
# layout), sim/'s tests on every line, then the tests
# of the reverse dependencies
# (packages outside ./client/... whose tests import what the series
# changes: nomad/, command/agent/..., drivers/...) in the sandbox against
# baseline/revdeps-<version>.tsv. Too slow for every CI run (the server
# package alone runs for tens of minutes on two cores). Without that file
# (`nomadfork baseline -revdeps` makes it, in hours) it says so and tries
# every failure on unpatched upstream instead: only UPSTREAM failures pass.
test-full: test check-lines test-sim-lines
	$(NOMADFORK) contract $(L)
	$(NOMADFORK) export -verify $(L)
	nice -n 10 $(NOMADFORK) release $(L)
	nice -n 10 $(NOMADFORK) release -verify $(L)
	@if [ -f $(REVDEPS_BASELINE) ]; then \
		echo "$(NOMADFORK) revdeps -run $(L)"; $(NOMADFORK) revdeps -run $(L); \
	else \
		echo "test-full: $(REVDEPS_BASELINE) does not exist; make it with \`$(NOMADFORK) baseline -revdeps $(L)\` (hours on 2 cores)."; \
		echo "test-full: until then every failing reverse-dependency test is retried and run on unpatched upstream; more than 20 failures all count."; \
		echo "$(NOMADFORK) revdeps -run -no-baseline $(L)"; $(NOMADFORK) revdeps -run -no-baseline $(L); \
	fi

# `make bench`: the workload suite (docs/bench.md) in the sandbox, on both
# topologies (1 server and 3 clients on 127.0.0.1; 3 servers and 3 clients
# on hosts of their own), 3 interleaved rounds of v1.5.3, the fork, v1.6.1
# and, on the default line when docs/bench/variants/seed.diff exists, the
# seed rule built by scripts/build-variant.sh seed: a table per workload
# and topology, the summary table and the goals on stdout, JSON and PNG
# charts in out/bench/ (~45 min on 2 cores). `nomadfork bench -quick` is
# the smoke test `make test` runs.
SEED_DIFF := docs/bench/variants/seed.diff
SEED_ON_LINE = $(filter $(LINE),$(shell cat patches/default-line))
bench: tool
	$(NOMADFORK) apply $(L)
	@if [ -n "$(SEED_ON_LINE)" ] && [ -f $(SEED_DIFF) ]; then \
		echo "scripts/build-variant.sh seed"; scripts/build-variant.sh seed || exit 1; \
		echo "$(NOMADFORK) bench $(L) -variant seed=out/variants/bin/seed/nomad"; \
		$(NOMADFORK) bench $(L) -variant seed=out/variants/bin/seed/nomad; \
	else \
		echo "bench: NOTE: no seed variant in this run: $(if $(SEED_ON_LINE),$(SEED_DIFF) does not exist,its diff applies to the default line's work tree only)"; \
		echo "$(NOMADFORK) bench $(L)"; $(NOMADFORK) bench $(L); \
	fi

# `make faults`: every fault scenario (leader-kill, client-restart,
# partition with and without max_client_disconnect, server-stall, and the
# checker's control dropped-update) on the 3-server cluster for v1.5.3, the
# fork and v1.6.1, and the fork's upgrade (a client's binary swapped on its
# data dir: upstream → fork → upstream, raw_exec tasks kept), its control
# upgrade-control, and mixed (upstream and fork clients side by side), one
# run at a time (docs/faults.md): a
# table per scenario on stdout, out/faults/faults.json, agent logs and
# views under out/faults/runs. Fails when a run of the fork is not ok.
faults: tool
	$(NOMADFORK) apply $(L)
	nice -n 10 $(NOMADFORK) faults $(L)

# `make scale`: the scale suite (sim/cmd/nodesim's simulated nodes in one
# process against the 3 servers of the multi topology, in the sandbox) at
# its default sizes (100, 250 and 400 nodes, the largest near where this
# machine stops keeping up; docs/scale.md), the rolling deployment, the
# batch queue and the drain, for the fork and the rule variants
# SCALE_VARIANTS (every-tick: v1.5.3's behaviour; upstream-urgency: v1.6.1's
# rule; seed; docs/bench/variants/), whose trees it prepares: a table on
# stdout, out/scale/scale.json, out/scale/charts/. SCALE_FLAGS adds flags
# (`make scale SCALE_FLAGS='-sizes 50,100,150 -rounds 2'`).
SCALE_VARIANTS = every-tick upstream-urgency seed
SCALE_FLAGS ?=
scale: tool
	$(NOMADFORK) apply $(L)
	for v in $(SCALE_VARIANTS); do scripts/build-variant.sh -src-only $$v || exit 1; done
	nice -n 10 $(NOMADFORK) scale $(L) $(foreach v,$(SCALE_VARIANTS),-variant $(v)=out/variants/src/$(v)) $(SCALE_FLAGS)

# `make vulns`: on every maintained line (its work tree applied first),
# govulncheck against the offline database pinned in tools/vulns (built once
# into out/vulns/), the table, out/vulns/<line>/*.json and the gate against
# patches/<line>/baseline/vulns-<line>.tsv (docs/vulns.md). `make test` runs
# it on the default line. `make vulns-doc` also rewrites docs/security/<line>.md.
vulns: tool
	@rc=0; for l in $(LINES); do \
		echo "$(NOMADFORK) apply -line $$l && nice -n 10 $(NOMADFORK) vulns -line $$l"; \
		$(NOMADFORK) apply -line $$l && nice -n 10 $(NOMADFORK) vulns -line $$l || rc=1; \
	done; exit $$rc

vulns-doc: tool
	@rc=0; for l in $(LINES); do \
		echo "$(NOMADFORK) apply -line $$l && nice -n 10 $(NOMADFORK) vulns -doc -line $$l"; \
		$(NOMADFORK) apply -line $$l && nice -n 10 $(NOMADFORK) vulns -doc -line $$l || rc=1; \
	done; exit $$rc

clean:
	rm -rf bin out

# `make commands-doc`: regenerate docs/commands.md from the command table
# (`go test ./cmd/nomadfork`, so `make test-tool` and CI, fails when it is stale).
commands-doc:
	NOMADFORK_UPDATE_DOCS=1 go test -count=1 -run '^TestCommandsDoc$$' ./cmd/nomadfork
