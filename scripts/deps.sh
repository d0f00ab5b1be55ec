#!/usr/bin/env bash
# Makes sure the commands nomadfork needs are installed: git, unshare
# (util-linux), ip (iproute2), gcc, and for `nomadfork release` the arm64
# cross compiler (gcc-aarch64-linux-gnu) and dpkg-deb. Installs missing ones
# with apt-get; also qemu-user (runs the arm64 release binary in
# `release -verify`) where apt has it, which is optional.
set -euo pipefail

missing=()
command -v git >/dev/null || missing+=(git)
command -v unshare >/dev/null || missing+=(util-linux)
command -v ip >/dev/null || missing+=(iproute2)
command -v go >/dev/null || { echo "deps: Go is not installed (need Go 1.26 or newer on PATH)" >&2; exit 1; }
command -v gcc >/dev/null || missing+=(gcc)
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v dpkg-deb >/dev/null || missing+=(dpkg)

optional=()
if ! command -v qemu-aarch64 >/dev/null && ! command -v qemu-aarch64-static >/dev/null &&
   command -v apt-cache >/dev/null && apt-cache policy qemu-user 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  optional+=(qemu-user)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "deps: missing ${missing[*]}; install them (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ${#optional[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "deps: optional ${optional[*]} not installed (release -verify skips running the arm64 binary); apt-get install ${optional[*]}" >&2
  else
    echo "deps: installing ${optional[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${optional[@]}" >/dev/null ||
      echo "deps: installing ${optional[*]} failed; release -verify skips running the arm64 binary" >&2
  fi
fi
