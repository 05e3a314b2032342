#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages make series and make series-check need, if any
# are missing: what the kernel's own build calls when it configures and
# prepares a tree (flex and bison for kconfig and genksyms, bc for
# timeconst.h, libelf for objtool and resolve_btfids, libssl for sign-file,
# pahole for the BTF options of the distro config), xz to unpack the source
# tarball, and the Python modules checkpatch.pl's SPDX check imports
# (without them it passes every license tag silently).
#
# Usage: tools/series/deps.sh

set -euo pipefail

# package -> a file it provides, to tell whether it is present
declare -A need=(
	[git]=/usr/bin/git
	[make]=/usr/bin/make
	[gcc]=/usr/bin/gcc
	[libc6-dev]=/usr/include/stdio.h
	[perl]=/usr/bin/perl
	[python3]=/usr/bin/python3
	[xz-utils]=/usr/bin/xz
	[flex]=/usr/bin/flex
	[bison]=/usr/bin/bison
	[bc]=/usr/bin/bc
	[libelf-dev]=/usr/include/libelf.h
	[libssl-dev]=/usr/include/openssl/ssl.h
	[dwarves]=/usr/bin/pahole
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
