# Thin entry points; the logic lives in cmd/nomadfork.
NOMADFORK := bin/nomadfork
# Newer upstream versions `make test` reports the series against.
STATUS_AGAINST := v1.5.5,v1.5.6,v1.6.1

.PHONY: all deps tool apply build check test test-tool bench clean

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
	go test -race -count=1 ./...

# `make test`: the tool's own tests, the series check, the upstream-ready
# export applied to a fresh upstream tree and built, upstream's client tests
# of the patched tree in the sandbox, the status report against newer
# upstream versions and the benchmark's smoke tests (single topology: v1.5.3
# and the fork; multi topology: the fork). CI runs exactly this.
test: deps test-tool apply
	$(NOMADFORK) check
	$(NOMADFORK) export -verify
	$(NOMADFORK) test
	$(NOMADFORK) status -against $(STATUS_AGAINST)
	$(NOMADFORK) bench -quick
	$(NOMADFORK) bench -quick -topology multi -versions fork

# `make bench`: the full benchmark in the sandbox (3 servers and 3 clients
# on hosts of their own, N=300, 5 interleaved rounds of v1.5.3, the fork and
# v1.6.1): a table on stdout, JSON and PNG charts in out/bench/.
# `nomadfork bench -quick` is the smoke test `make test` runs.
bench: tool
	@test -d nomad || $(NOMADFORK) apply
	$(NOMADFORK) bench

clean:
	rm -rf bin out
