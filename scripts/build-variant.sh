#!/usr/bin/env bash
# Builds a bench variant: the fork's work tree (nomad/, its HEAD) with
# docs/bench/variants/<name>.diff applied, in a linked work tree under
# out/variants/src/<name>, into out/variants/bin/<name>/nomad. Run it with
# `nomadfork bench -variant <name>=out/variants/bin/<name>/nomad`.
# With -src-only it only prepares the linked work tree (what `nomadfork
# scale -variant <name>=out/variants/src/<name>` builds the simulator
# against) and builds no nomad binary.
# With -check it only checks that the diff applies to the fork's HEAD
# (`make check-variants`) and changes nothing; a diff kept for the record
# passes unchecked.
# The variant's code is only compiled here; it runs in the bench's sandbox.
# Its revision is the fork's HEAD +CHANGES (the diff is not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
src_only=false
check_only=false
case "${1:-}" in
-src-only) src_only=true; shift ;;
-check) check_only=true; shift ;;
esac
name=${1:?usage: scripts/build-variant.sh [-src-only | -check] <name> (a docs/bench/variants/<name>.diff)}
diff=$PWD/docs/bench/variants/$name.diff
src=$PWD/out/variants/src/$name
bin=$PWD/out/variants/bin/$name/nomad
test -f "$diff" || { echo "no $diff" >&2; exit 2; }
# A diff kept for the record says so in its first line: nothing builds
# it, so -check passes over it and a build refuses it.
if head -n 1 "$diff" | grep -q '^Kept for the record'; then
	if $check_only; then
		echo "$name.diff is kept for the record: not checked"
		exit 0
	fi
	echo "$name.diff is kept for the record and no longer applies to the fork's HEAD: build a live variant (one whose first line is a diff header; docs/bench/variants/README.md)" >&2
	exit 2
fi
test -d nomad/.git || { echo "no work tree: run 'make' (nomadfork apply) first" >&2; exit 2; }
head=$(git -C nomad rev-parse HEAD)
if $check_only; then
	# --cached checks against a scratch index holding HEAD, so neither a
	# hand-edited work tree nor the real index can hide a diff that no
	# longer applies to HEAD.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	GIT_INDEX_FILE=$tmp/index git -C nomad read-tree "$head"
	if ! GIT_INDEX_FILE=$tmp/index git -C nomad apply --check --cached "$diff"; then
		echo "$name.diff does not apply to the fork's HEAD (${head:0:12}): regenerate it or mark it kept for the record (a first line 'Kept for the record: <why>'; docs/bench/variants/README.md)" >&2
		exit 1
	fi
	echo "$name.diff applies to the fork's HEAD (${head:0:12})"
	exit 0
fi
if [ -d "$src" ]; then
	git -C "$src" checkout --quiet --force --detach "$head"
	git -C "$src" clean --quiet -fdx
else
	git -C nomad worktree prune
	git -C nomad worktree add --quiet --detach "$src" "$head"
fi
git -C "$src" apply "$diff"
if $src_only; then
	echo "prepared $src (fork HEAD ${head:0:12} + $name.diff)"
	exit 0
fi
# Built like the bench's own binaries (nomadfork's build.Test: the release
# flags and toolchain, with upstream's mock_driver).
go build -o bin/nomadfork ./cmd/nomadfork
bin/nomadfork build -tree "$src" -test -metadata "fork.$name" -o "$bin"
echo "built $bin (fork HEAD ${head:0:12} + $name.diff)"
