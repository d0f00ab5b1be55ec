#!/usr/bin/env bash
# Makes sure the commands nomadfork needs are installed: git, unshare
# (util-linux) and ip (iproute2). Installs missing ones with apt-get.
set -euo pipefail

missing=()
command -v git >/dev/null || missing+=(git)
command -v unshare >/dev/null || missing+=(util-linux)
command -v ip >/dev/null || missing+=(iproute2)
command -v go >/dev/null || { echo "deps: Go is not installed (need Go 1.26 or newer on PATH)" >&2; exit 1; }
command -v gcc >/dev/null || missing+=(gcc)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "deps: missing ${missing[*]}; install them (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
