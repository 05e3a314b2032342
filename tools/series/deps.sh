#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages make series and make series-check need, if any
# are missing: git for the scratch tree, xz to unpack the source tarball,
# perl for checkpatch.pl and get_maintainer.pl, python3 for kernel-doc, and
# the Python modules checkpatch.pl's SPDX check imports (without them it
# passes every license tag silently). The kernel builds run in
# tools/kernel/toolchain.sh's root, which brings its own compiler and
# build tools.
#
# Usage: tools/series/deps.sh

set -euo pipefail

# package -> a file it provides, to tell whether it is present
declare -A need=(
	[git]=/usr/bin/git
	[make]=/usr/bin/make
	[perl]=/usr/bin/perl
	[python3]=/usr/bin/python3
	[xz-utils]=/usr/bin/xz
	[python3-ply]=/usr/lib/python3/dist-packages/ply/lex.py
	[python3-git]=/usr/lib/python3/dist-packages/git/__init__.py
)

missing=()
for pkg in "${!need[@]}"; do
	if [ ! -e "${need[$pkg]}" ] ||
		! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$pkg")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

printf '[deps] installing: %s\n' "${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
for pkg in "${missing[@]}"; do
	if ! apt-cache show "$pkg" >/dev/null 2>&1; then
		"${sudo[@]}" apt-get update -qq
		break
	fi
done
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
