#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the newest Debian 6.12 kernel image, headers, kbuild and source
# packages into a cache folder and extract them there, without installing
# anything into the host's boot setup.
#
# Usage: tools/kernel/fetch.sh [CACHE_DIR]
# Prints "KVER=<version>" on its last line. Re-runs reuse the cache.

set -euo pipefail

cache=${1:-$(cd "$(dirname "$0")/../.." && pwd)/.cache}
mkdir -p "$cache/debs"

log() { printf '[fetch] %s\n' "$*" >&2; }

ensure_apt_lists() {
	local names

	names=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null || true)
	if [ -z "$names" ]; then
		log "apt-get update"
		apt-get update -qq >&2
	fi
}

# Newest linux-image-6.12.N+deb12-amd64 (not -rt, not -dbg, not -unsigned).
pick_version() {
	apt-cache pkgnames linux-image-6.12. |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64$' |
		sed -e 's/^linux-image-//' -e 's/-amd64$//' | sort -V | tail -1
}

download() {
	local pkg=$1

	if ls "$cache/debs/${pkg}_"*.deb >/dev/null 2>&1; then
		return
	fi
	log "downloading $pkg"
	(cd "$cache/debs" && apt-get download -q "$pkg" >&2)
}

# Sets abi and kver to the newest 6.12 and downloads its packages.
download_all() {
	local pkg

	abi=$(pick_version)
	[ -n "$abi" ] || { log "no linux-image-6.12 package found"; return 1; }
	kver=$abi-amd64
	for pkg in "linux-image-$kver" "linux-headers-$kver" \
		"linux-headers-$abi-common" "linux-kbuild-$abi" linux-source-6.12; do
		download "$pkg" || return 1
	done
}

extract() {
	local pkg=$1 dest=$2

	if [ -e "$dest/.extracted-$pkg" ]; then
		return
	fi
	log "extracting $pkg"
	mkdir -p "$dest"
	dpkg-deb -x "$cache/debs/${pkg}_"*.deb "$dest"
	touch "$dest/.extracted-$pkg"
}

# The headers' top Makefile includes the -common tree by absolute path and
# lib/modules/<kver>/build is an absolute symlink: point both into the cache.
fix_headers() {
	local root=$1 kver=$2 abi=$3
	local hdr=$root/usr/src/linux-headers-$kver
	local common=$root/usr/src/linux-headers-$abi-common

	printf 'include %s/Makefile\n' "$common" >"$hdr/Makefile"
	ln -sfn "$hdr" "$root/lib/modules/$kver/build"
}

# A complete cache is reused as it is, without asking the registry again.
if [ -s "$cache/kver" ] && [ -e "$cache/linux-source/.extracted" ] &&
	[ -e "$cache/root/lib/modules/$(cat "$cache/kver")/modules.dep" ]; then
	kver=$(cat "$cache/kver")
	log "kernel $kver (cached in $cache)"
	echo "KVER=$kver"
	exit 0
fi

ensure_apt_lists
if ! command -v depmod >/dev/null; then
	log "installing kmod (depmod)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kmod >&2
fi
# Package lists older than the registry (an old machine image) name
# versions it no longer serves: update them once and pick again.
if ! download_all; then
	log "apt-get update, then trying again"
	apt-get update -qq >&2
	download_all
fi
root=$cache/root

for pkg in "linux-image-$kver" "linux-headers-$kver" \
	"linux-headers-$abi-common" "linux-kbuild-$abi"; do
	extract "$pkg" "$root"
done
fix_headers "$root" "$kver" "$abi"

if [ ! -e "$root/lib/modules/$kver/modules.dep" ]; then
	log "depmod"
	depmod -b "$root" "$kver"
fi

src=$cache/linux-source
if [ ! -e "$src/.extracted" ]; then
	extract linux-source-6.12 "$cache/src-deb"
	log "unpacking linux-source"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf "$cache/src-deb/usr/src/"linux-source-6.12.tar.*
	touch "$src/.extracted"
fi

printf '%s\n' "$kver" >"$cache/kver"
log "kernel $kver in $root"
echo "KVER=$kver"
