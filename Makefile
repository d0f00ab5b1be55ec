# Thin entry points; the logic lives in cmd/nomadfork.
NOMADFORK := bin/nomadfork
# Newer upstream versions `make test` reports the series against.
STATUS_AGAINST := v1.5.5,v1.5.6,v1.6.1
# The reverse dependencies' baseline of the pinned version (make test-full).
REVDEPS_BASELINE = baseline/revdeps-$(shell grep -m1 '"version"' upstream.json | cut -d'"' -f4).tsv

.PHONY: all deps tool apply build check test test-full test-tool test-sim bench faults clean

# `make`: apply the series to the pinned upstream and build bin/nomad.
all: build

deps:
	@scripts/deps.sh

tool:
	go build -o $(NOMADFORK) ./cmd/nomadfork

apply: tool
	$(NOMADFORK) apply

build: apply
	$(NOMADFORK) build

check: tool
	$(NOMADFORK) check

test-tool:
	go vet ./...
	go test -race -count=1 -timeout 30m ./...

# `make test-sim`: sim/'s tests in the sandbox, with bin/ (the fork's nomad,
# which upstream's helper/subproc needs) first on PATH.
test-sim: build
	cd sim && go mod download
	cd sim && PATH=$(CURDIR)/bin:$$PATH ../$(NOMADFORK) sandbox -- go test -race ./...

# `make test`: the tool's own tests, the series check (every prefix and
# every patch on its declared dependencies), each PR's export applied to a
# fresh upstream tree and built, upstream's client tests of the patched tree
# in the sandbox, upstream's unchanged tests against the patched code
# (contract), the reverse dependencies' tests type-checked, the status
# report against newer upstream versions, the benchmark's smoke tests
# (single topology: v1.5.3 and the fork; multi topology: the fork) and the
# fault scenarios' smoke test (client-restart on the fork: 0 lost updates,
# 0 duplicate runs, convergence). CI runs exactly this.
test: deps test-tool apply
	$(NOMADFORK) check
	$(NOMADFORK) export -verify
	$(NOMADFORK) test
	$(NOMADFORK) contract
	$(NOMADFORK) revdeps
	$(NOMADFORK) status -against $(STATUS_AGAINST)
	$(NOMADFORK) bench -quick
	$(NOMADFORK) bench -quick -topology multi -versions fork
	$(NOMADFORK) faults -smoke

# `make test-full`: `make test`, then the tests of the reverse dependencies
# (packages outside ./client/... whose tests import what the series
# changes: nomad/, command/agent/..., drivers/...) in the sandbox against
# baseline/revdeps-<version>.tsv. Too slow for every CI run (the server
# package alone runs for tens of minutes on two cores). Without that file
# (`nomadfork baseline -revdeps` makes it, in hours) it says so and tries
# every failure on unpatched upstream instead: only UPSTREAM failures pass.
test-full: test
	@if [ -f $(REVDEPS_BASELINE) ]; then \
		echo "$(NOMADFORK) revdeps -run"; $(NOMADFORK) revdeps -run; \
	else \
		echo "test-full: $(REVDEPS_BASELINE) does not exist; make it with \`$(NOMADFORK) baseline -revdeps\` (hours on 2 cores)."; \
		echo "test-full: until then every failing reverse-dependency test is retried and run on unpatched upstream; more than 20 failures all count."; \
		echo "$(NOMADFORK) revdeps -run -no-baseline"; $(NOMADFORK) revdeps -run -no-baseline; \
	fi

# `make bench`: the full benchmark in the sandbox (3 servers and 3 clients
# on hosts of their own, N=300, 5 interleaved rounds of v1.5.3, the fork and
# v1.6.1): a table on stdout, JSON and PNG charts in out/bench/.
# `nomadfork bench -quick` is the smoke test `make test` runs.
bench: tool
	@test -d nomad || $(NOMADFORK) apply
	$(NOMADFORK) bench

# `make faults`: every fault scenario (leader-kill, client-restart,
# partition with and without max_client_disconnect, server-stall, and the
# checker's control dropped-update) on the 3-server cluster for v1.5.3, the
# fork and v1.6.1, one run at a time: a
# table per scenario on stdout, out/faults/faults.json, agent logs and
# views under out/faults/runs. Fails when a run of the fork is not ok.
faults: tool
	@test -d nomad || $(NOMADFORK) apply
	nice -n 10 $(NOMADFORK) faults

clean:
	rm -rf bin out
