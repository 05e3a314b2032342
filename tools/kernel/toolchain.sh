#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The compiler Debian built its 7.3 kernel with (gcc-14, Debian 13) for a
# Debian 12 host that has only gcc-12: a debootstrap minbase root of trixie
# with gcc-14 and what kbuild and a kernel build call, cached outside the
# checkout and used with chroot.
#
#   $ZRAM_KCACHE/toolchain-<hash>/   the root; <hash> covers the suite, the
#                                    package list and the recipe below
#
# Usage: tools/kernel/toolchain.sh             build it if needed; prints
#                                              "TROOT=<root>"
#        tools/kernel/toolchain.sh run [--bind DIR]... -- CMD [ARG...]
#            run CMD in the root, as root, in the caller's working folder
#            and environment. The checkout, $ZRAM_KCACHE, /tmp and every
#            --bind DIR are visible at their own paths, so the absolute
#            paths kbuild records are the same inside and outside.
# Needs root. Concurrent callers wait for one build (flock).

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kcache=${ZRAM_KCACHE:-/var/cache/zram-rework}
suite=trixie
# what a module build (kbuild, the BTF step, sparse) and a kernel build
# (host tools, objtool, modules_install) run
packages=(gcc-14 gcc make libc6-dev binutils libelf-dev libssl-dev zlib1g-dev
	dwarves bc flex bison perl python3 kmod rsync cpio xz-utils zstd)
# 7.3's kbuild runs sparse only when it knows __typeof_unqual__
# (scripts/checker-valid.sh), which trixie's 0.6.4 does not: the sparse
# binary of sid's package goes to /usr/local/bin (it needs only libc).
sparse_suite=sid
# Bump when the steps below change what the root holds.
recipe=2

log() { printf '[toolchain] %s\n' "$*" >&2; }
die() { printf '[toolchain] error: %s\n' "$*" >&2; exit 1; }

key=$(printf '%s\n' "recipe $recipe" "$suite" "${packages[@]}" "$sparse_suite" |
	sha256sum | cut -c1-12)
root=$kcache/toolchain-$key

build_root() {
	local tmp=$root.tmp buildlog=$root.log mirror

	"$top/tools/testing/vm/deps.sh" --only debootstrap=/usr/sbin/debootstrap
	mirror=$("$top/tools/kernel/mirror.sh")
	rm -rf --one-file-system "$tmp"
	log "debootstrap --variant=minbase $suite from $mirror (log: $buildlog)"
	local t=$SECONDS
	if ! debootstrap --variant=minbase \
		--include="$(IFS=,; echo "${packages[*]}")" \
		"$suite" "$tmp" "$mirror" >"$buildlog" 2>&1; then
		tail -20 "$buildlog" >&2
		die "debootstrap failed (log: $buildlog)"
	fi
	install_sparse "$tmp" "$mirror" >>"$buildlog" 2>&1 ||
		die "installing sparse from $sparse_suite failed (log: $buildlog)"
	rm -rf "$tmp/var/cache/apt/archives/"*.deb
	mv "$tmp" "$root"
	log "root ready in $((SECONDS - t)) s: $root"
	# keep only this entry: another key is another recipe
	find "$kcache" -mindepth 1 -maxdepth 1 -name 'toolchain-*' \
		! -name "toolchain-$key" ! -name "toolchain-$key.*" -print0 |
		xargs -0 -r rm -rf --one-file-system
}

# Installs the sparse binary of $sparse_suite into root $1 from mirror $2,
# with apt lists of its own in the root's /var/tmp (not its sources).
install_sparse() {
	local root=$1 mirror=$2 dir=/var/tmp/sparse
	local opts="-o Dir::Etc::sourcelist=$dir/sources.list -o Dir::Etc::sourceparts=-"

	opts+=" -o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache"

	mkdir -p "$root$dir/lists/partial" "$root$dir/cache/archives/partial"
	echo "deb $mirror $sparse_suite main" >"$root$dir/sources.list"
	# the host's way to the registry (its apt.conf.d: proxies, date checks)
	cp -L /etc/apt/apt.conf.d/* "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	chroot "$root" /bin/sh -ec "apt-get $opts update -qq
		cd $dir && apt-get $opts download sparse
		dpkg-deb --fsys-tarfile sparse_*.deb |
			tar -x -O ./usr/bin/sparse >/usr/local/bin/sparse
		chmod 0755 /usr/local/bin/sparse
		rm -rf $dir
		/usr/local/bin/sparse --version"
}

ensure_root() {
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
	mkdir -p "$kcache" || die "cannot create $kcache (set ZRAM_KCACHE)"
	[ -x "$root/usr/bin/x86_64-linux-gnu-gcc-14" ] && return 0
	exec 8>"$kcache/.toolchain.lock"
	flock 8
	[ -x "$root/usr/bin/x86_64-linux-gnu-gcc-14" ] || build_root
	flock -u 8
}

# Mounts the folders in "$@" at their own paths in the root and runs the
# command after "--" there. Called in a private mount namespace.
run_inside() {
	local dir binds=("$top" "$kcache" /tmp)

	while [ $# -gt 0 ]; do
		case $1 in
		--bind) binds+=("$(realpath "$2")"); shift 2 ;;
		--) shift; break ;;
		*) die "usage: toolchain.sh run [--bind DIR]... -- CMD [ARG...]" ;;
		esac
	done
	[ $# -gt 0 ] || die "usage: toolchain.sh run [--bind DIR]... -- CMD [ARG...]"
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	for dir in "${binds[@]}"; do
		mkdir -p "$root$dir"
		mount --rbind "$dir" "$root$dir"
	done
	# shellcheck disable=SC2016 # expanded by the shell in the root
	exec chroot "$root" /bin/sh -c 'cd "$1" && shift && exec "$@"' \
		_ "$PWD" "$@"
}

case ${1:-} in
'')
	ensure_root
	echo "TROOT=$root"
	;;
run)
	shift
	ensure_root
	if [ -z "${TOOLCHAIN_PRIVATE_NS:-}" ]; then
		exec env TOOLCHAIN_PRIVATE_NS=1 \
			PATH="/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH" \
			unshare --mount --propagation private -- "$0" run "$@"
	fi
	unset TOOLCHAIN_PRIVATE_NS
	run_inside "$@"
	;;
*)
	die "usage: toolchain.sh [run [--bind DIR]... -- CMD [ARG...]]"
	;;
esac
