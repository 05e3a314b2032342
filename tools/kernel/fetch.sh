#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the newest Debian 6.12 kernel image, headers, kbuild and source
# packages, all of one version, into a cache folder and extract them
# there, without installing anything into the host's boot setup.
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

# The newest 6.12 ABI of the amd64 flavour (not -rt, not -cloud, not
# -dbg). The signed image of an upload comes out after the rest of it
# (linux-signed-amd64 is built from it), so the unsigned image counts too:
# the same kernel and modules without signatures, which nothing here checks.
pick_version() {
	apt-cache pkgnames linux-image-6.12. |
		sed -n -E 's/^linux-image-(6\.12\.[0-9]+\+deb[0-9]+)-amd64(-unsigned)?$/\1/p' |
		sort -uV | tail -1
}

# The image package of ABI $1: the signed one once the archive has it.
pick_image() {
	local signed=linux-image-$1-amd64

	if apt-cache pkgnames "$signed" | grep -qx -- "$signed"; then
		echo "$signed"
	else
		echo "$signed-unsigned"
	fi
}

# The cached .deb of package $1 at version $2 (apt-get download's file
# name, arch-specific or arch-independent), or nothing.
deb_of() {
	local f

	for f in "$cache/debs/${1}_${2//:/%3a}_amd64.deb" \
		"$cache/debs/${1}_${2//:/%3a}_all.deb"; do
		[ ! -e "$f" ] || echo "$f"
	done
}

# Downloads package $1 at version $2 unless it is cached.
download() {
	[ -z "$(deb_of "$1" "$2")" ] || return 0
	log "downloading $1 $2"
	(cd "$cache/debs" && apt-get download -q "$1=$2" >&2)
}

# Sets abi, kver, image and ver, and downloads the five packages, each at
# the image's version: the archive may hold a newer source and headers
# than the newest image (an upload whose signed image is not out yet, once
# its ABI is not new), and they must all be one kernel.
download_all() {
	local pkg

	abi=$(pick_version)
	[ -n "$abi" ] || { log "no linux-image-6.12 package found"; return 1; }
	kver=$abi-amd64
	image=$(pick_image "$abi")
	ver=$(apt-cache show --no-all-versions "$image" | sed -n 's/^Version: //p')
	[ -n "$ver" ] || { log "no version of $image found"; return 1; }
	for pkg in "$image" "linux-headers-$kver" "linux-headers-$abi-common" \
		"linux-kbuild-$abi" linux-source-6.12; do
		download "$pkg" "$ver" || return 1
	done
}

# Extracts package $1 (at version $ver, cached) into $2.
extract() {
	local pkg=$1 dest=$2 deb

	if [ -e "$dest/.extracted-$pkg" ]; then
		return
	fi
	deb=$(deb_of "$pkg" "$ver")
	[ -n "$deb" ] || { log "$pkg $ver is not in $cache/debs"; return 1; }
	log "extracting $pkg $ver"
	mkdir -p "$dest"
	dpkg-deb -x "$deb" "$dest"
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

for pkg in "$image" "linux-headers-$kver" \
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
