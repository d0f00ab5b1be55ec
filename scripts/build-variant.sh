#!/usr/bin/env bash
# Builds a bench variant: the fork's work tree (nomad/, its HEAD) with
# docs/bench/variants/<name>.diff applied, in a linked work tree under
# out/variants/src/<name>, into out/variants/bin/<name>/nomad. Run it with
# `nomadfork bench -variant <name>=out/variants/bin/<name>/nomad`.
# The variant's code is only compiled here; it runs in the bench's sandbox.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/build-variant.sh <name> (a docs/bench/variants/<name>.diff)}
diff=$PWD/docs/bench/variants/$name.diff
src=$PWD/out/variants/src/$name
bin=$PWD/out/variants/bin/$name/nomad
test -f "$diff" || { echo "no $diff" >&2; exit 2; }
test -d nomad/.git || { echo "no work tree: run 'make' (nomadfork apply) first" >&2; exit 2; }
head=$(git -C nomad rev-parse HEAD)
if [ -d "$src" ]; then
	git -C "$src" checkout --quiet --force --detach "$head"
	git -C "$src" clean --quiet -fdx
else
	git -C nomad worktree prune
	git -C nomad worktree add --quiet --detach "$src" "$head"
fi
git -C "$src" apply "$diff"
mkdir -p "$(dirname "$bin")"
cd "$src"
GOWORK=off GOFLAGS="-trimpath -buildvcs=false" go build \
	-ldflags "-X github.com/hashicorp/nomad/version.VersionMetadata=fork.$name -X github.com/hashicorp/nomad/version.GitCommit=$head" \
	-o "$bin" .
echo "built $bin (fork HEAD ${head:0:12} + $name.diff)"
