#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch one Debian kernel's image, modules, headers, kbuild and source
# packages, all of one version, into a cache folder and extract them there,
# without installing anything into the host's boot setup.
#
#   7.3   (default) the newest 7.3 of trixie-backports: the primary kernel.
#         The host (Debian 12) has no apt source for it, so apt runs with
#         its own lists and sources under CACHE_DIR/apt, never /etc/apt.
#         Its packages install into usr/lib/modules; the cache lays them
#         out as boot/vmlinuz-<kver>, boot/config-<kver> and
#         lib/modules/<kver>/ (lib -> usr/lib), as the harness expects.
#   6.12  the newest 6.12 of the host's own suites (bookworm-security):
#         the LTS backport.
#
# CACHE_DIR gets debs/, root/ (the kernel and headers), linux-source/ (the
# unpacked source tree) and kver. Default: .cache for 7.3, .cache/k6.12
# for 6.12.
#
# Usage: tools/kernel/fetch.sh [--series 7.3|6.12] [CACHE_DIR]
# Prints "KVER=<version>" on its last line. Re-runs reuse the cache.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
series=7.3
if [ "${1:-}" = --series ]; then
	series=${2:?usage: fetch.sh [--series 7.3|6.12] [CACHE_DIR]}
	shift 2
fi
case $series in
7.3) cache=${1:-$top/.cache} ;;
6.12) cache=${1:-$top/.cache/k6.12} ;;
*) echo "[fetch] error: unknown series '$series' (7.3 or 6.12)" >&2; exit 2 ;;
esac
mkdir -p "$cache/debs"

log() { printf '[fetch] %s\n' "$*" >&2; }

# apt with the cache's own sources and lists for 7.3; the host's for 6.12
apt_opts=()
if [ "$series" = 7.3 ]; then
	apt_opts=(-o "Dir::Etc::sourcelist=$cache/apt/sources.list"
		-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$cache/apt/lists"
		-o "Dir::Cache=$cache/apt/cache")
fi
apt_get() { apt-get "${apt_opts[@]}" "$@"; }
apt_cache() { apt-cache "${apt_opts[@]}" "$@"; }

apt_update() {
	if [ "$series" = 7.3 ]; then
		mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
		printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie-backports main\n' \
			"$("$top/tools/kernel/mirror.sh" trixie)" >"$cache/apt/sources.list"
	fi
	log "apt-get update${apt_opts:+ (trixie-backports, lists in $cache/apt)}"
	apt_get update -qq >&2
}

ensure_apt_lists() {
	local names

	names=$(apt_cache pkgnames "linux-image-$series." 2>/dev/null || true)
	[ -n "$names" ] || apt_update
}

# The newest ABI of the series, amd64 flavour (not -rt, not -cloud, not
# -dbg). The signed image of an upload comes out after the rest of it
# (linux-signed-amd64 is built from it), so the unsigned image counts too:
# the same kernel and modules without signatures, which nothing here checks.
pick_version() {
	apt_cache pkgnames "linux-image-$series." |
		sed -n -E "s/^linux-image-(${series//./\\.}\\.[0-9]+\\+deb[0-9]+)-amd64(-unsigned)?\$/\\1/p" |
		sort -uV | tail -1
}

# The package of ABI $1 with the kernel itself (7.3: linux-binary-*, which
# the linux-image-* meta package depends on): the signed one once the
# archive has it.
pick_image() {
	local kind=linux-image signed

	[ "$series" = 6.12 ] || kind=linux-binary
	signed=$kind-$1-amd64
	if apt_cache pkgnames "$signed" | grep -qx -- "$signed"; then
		echo "$signed"
	elif [ "$kind" = linux-binary ]; then
		echo "linux-binary-unsigned-$1-amd64"
	else
		echo "$signed-unsigned"
	fi
}

# The packages of ABI $1 besides the image: 7.3 splits the modules and the
# config, System.map and modules.builtin out of it.
other_packages() {
	[ "$series" = 6.12 ] || echo "linux-modules-$1-amd64 linux-base-$1-amd64"
	echo "linux-headers-$1-amd64 linux-headers-$1-common linux-kbuild-$1"
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
	(cd "$cache/debs" && apt_get download -q "$1=$2" >&2)
}

# Sets abi, kver, image and ver, and downloads the five packages, each at
# the image's version: the archive may hold a newer source and headers
# than the newest image (an upload whose signed image is not out yet, once
# its ABI is not new), and they must all be one kernel.
download_all() {
	local pkg

	abi=$(pick_version)
	[ -n "$abi" ] || { log "no linux-image-$series package found"; return 1; }
	kver=$abi-amd64
	image=$(pick_image "$abi")
	# shellcheck disable=SC2207 # package names have no blanks
	packages=("$image" $(other_packages "$abi"))
	ver=$(apt_cache show --no-all-versions "$image" | sed -n 's/^Version: //p')
	[ -n "$ver" ] || { log "no version of $image found"; return 1; }
	for pkg in "${packages[@]}" "linux-source-$series"; do
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

# The headers' top Makefile names the -common tree (and in 7.3 its own
# output folder) by absolute path, and lib/modules/<kver>/build is an
# absolute symlink in 6.12: point them into the cache.
fix_headers() {
	local root=$1 kver=$2 abi=$3
	local hdr=$root/usr/src/linux-headers-$kver
	local common=$root/usr/src/linux-headers-$abi-common

	{
		! grep -q '^KBUILD_OUTPUT=' "$hdr/Makefile" ||
			printf 'KBUILD_OUTPUT=%s\n' "$hdr"
		printf 'include %s/Makefile\n' "$common"
	} >"$hdr/Makefile.new"
	mv "$hdr/Makefile.new" "$hdr/Makefile"
	ln -sfn "$hdr" "$root/lib/modules/$kver/build"
}

# 7.3's packages install into usr/lib/modules/<kver> (vmlinuz and config
# there too): give the root the 6.12 layout the harness boots from.
lay_out_boot() {
	local root=$1 kver=$2
	local m=usr/lib/modules/$kver

	[ -e "$root/$m/vmlinuz" ] || return 0
	[ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
	mkdir -p "$root/boot"
	ln -sfn "../$m/vmlinuz" "$root/boot/vmlinuz-$kver"
	ln -sfn "../$m/config" "$root/boot/config-$kver"
	ln -sfn "../$m/System.map" "$root/boot/System.map-$kver"
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
	apt_update
	download_all
fi
root=$cache/root

for pkg in "${packages[@]}"; do
	extract "$pkg" "$root"
done
lay_out_boot "$root" "$kver"
fix_headers "$root" "$kver" "$abi"

if [ ! -e "$root/lib/modules/$kver/modules.dep" ]; then
	log "depmod"
	depmod -b "$root" "$kver"
fi

src=$cache/linux-source
if [ ! -e "$src/.extracted" ]; then
	extract "linux-source-$series" "$cache/src-deb"
	log "unpacking linux-source"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf "$cache/src-deb/usr/src/linux-source-$series.tar."*
	touch "$src/.extracted"
fi

# kbuild runs scripts/checker-valid.sh for C=1/C=2 and skips sparse with a
# warning when it is missing, which it is from linux-kbuild-7.3: the
# source package's copy
checker=$(readlink -f "$root/usr/src/linux-headers-$abi-common/scripts")/checker-valid.sh
if [ -e "$src/scripts/checker-valid.sh" ] && [ ! -e "$checker" ]; then
	cp "$src/scripts/checker-valid.sh" "$checker"
fi

printf '%s\n' "$kver" >"$cache/kver"
log "kernel $kver in $root"
echo "KVER=$kver"
