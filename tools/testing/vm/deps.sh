#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the VM harness needs, if any are missing.
# Runs "apt-get update" only when a missing package is not known to apt.
#
# Usage: tools/testing/vm/deps.sh

set -euo pipefail

# package -> a file it provides, to tell whether it is present
declare -A need=(
	[qemu-system-x86]=/usr/bin/qemu-system-x86_64
	[busybox-static]=/bin/busybox
	[bash]=/bin/bash
	[fio]=/usr/bin/fio
	[e2fsprogs]=/sbin/mke2fs
	[kmod]=/sbin/depmod
	[cpio]=/bin/cpio
	[util-linux]=/sbin/losetup
	[xz-utils]=/usr/bin/xz
	[dmsetup]=/sbin/dmsetup
	[coreutils]=/usr/bin/sha256sum
	[findutils]=/usr/bin/find
	[gzip]=/bin/gzip
	[dwarves]=/usr/bin/pahole
	[sparse]=/usr/bin/sparse
	[shellcheck]=/usr/bin/shellcheck
)

missing=()
for pkg in "${!need[@]}"; do
	if [ ! -e "${need[$pkg]}" ] ||
		! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$pkg")
	fi
done
# zramctl and blkdiscard live in util-linux on bookworm, checked above.

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
