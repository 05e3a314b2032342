#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build drivers/block/zram as an out-of-tree module with W=1 (and sparse
# when C=1 or C=2 is given). Any compiler or sparse warning fails the
# build. ZRAM_KERNEL names the kernel:
#   debian      (default) Debian's 7.3 (tools/kernel/fetch.sh), built in
#               place (drivers/block/zram/zram.ko) with the gcc-14 Debian
#               built it with, in tools/kernel/toolchain.sh's root
#   debian-6.12 Debian's 6.12 LTS (fetch.sh --series 6.12), with the host's
#               gcc-12, from a copy in .cache/k6.12/zram, the 7.3 APIs
#               mapped by tools/build/compat/zram-6.12.h
#   debug       the debug kernel (tools/kernel/build-debug.sh), from a copy
#               in .cache/kdebug/zram
# so that the builds coexist.
#
# Recompression (CONFIG_ZRAM_MULTI_COMP) is built in, as the kselftest
# config asks, although Debian's kernels have the option off. With
# ZRAM_MULTI_COMP=n it is left out, and the module is built from a copy of
# the sources in .cache/nocomp/zram (.cache/k6.12/nocomp/zram for 6.12).
#
# Usage: [ZRAM_KERNEL=debian|debian-6.12|debug] [ZRAM_MULTI_COMP=n]
#        tools/build/module.sh [C=1]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/drivers/block/zram
opts=()
kcflags=()
# the kernels built with a gcc the host lacks: make runs in this root
in_toolchain=("$top/tools/kernel/toolchain.sh" run --)

# Copies the sources into $1 (made afresh).
copy_sources() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$src"/*.[ch] "$src/Makefile" "$1/"
}

case ${ZRAM_KERNEL:-debian} in
debian)
	kver=$("$top/tools/kernel/fetch.sh" | sed -n 's/^KVER=//p')
	kdir=$top/.cache/root/lib/modules/$kver/build
	mdir=$src
	log=$top/.cache/module-build.log
	if [ "${ZRAM_MULTI_COMP:-y}" = n ]; then
		mdir=$top/.cache/nocomp/zram
		log=$top/.cache/nocomp/module-build.log
		copy_sources "$mdir"
	fi
	;;
debian-6.12)
	kver=$("$top/tools/kernel/fetch.sh" --series 6.12 | sed -n 's/^KVER=//p')
	kdir=$top/.cache/k6.12/root/lib/modules/$kver/build
	mdir=$top/.cache/k6.12/zram
	log=$top/.cache/k6.12/module-build.log
	if [ "${ZRAM_MULTI_COMP:-y}" = n ]; then
		mdir=$top/.cache/k6.12/nocomp/zram
		log=$top/.cache/k6.12/nocomp/module-build.log
	fi
	in_toolchain=()
	kcflags=(-include "$top/tools/build/compat/zram-6.12.h")
	copy_sources "$mdir"
	# The Debian kernel has BTF, so kbuild runs pahole on every module;
	# without it the build fails only at the very end.
	if ! command -v pahole >/dev/null; then
		echo "[module] error: pahole (package dwarves) is missing;" \
			"make module installs it (tools/testing/vm/deps.sh)" >&2
		exit 1
	fi
	;;
debug)
	out=$("$top/tools/kernel/build-debug.sh")
	kver=$(sed -n 's/^KVER=//p' <<<"$out")
	kdir=$(sed -n 's/^KROOT=//p' <<<"$out")/lib/modules/$kver/build
	mdir=$top/.cache/kdebug/zram
	log=$top/.cache/kdebug/module-build.log
	# kbuild sees no change when the same sources meet another debug
	# kernel (a new config fragment): build afresh when the kernel is not
	# the one the objects were built against
	if [ "$(cat "$mdir/.kdir" 2>/dev/null)" != "$kdir" ]; then
		rm -rf "$mdir"
		mkdir -p "$mdir"
		echo "$kdir" >"$mdir/.kdir"
	fi
	# not the zram.mod.c of a build in place (ZRAM_KERNEL=debian): it
	# names that kernel's module dependencies, and modpost does not
	# replace a newer one here when zram.o is unchanged
	rsync -a --delete --exclude='*.mod.c' --include='*.[ch]' --include=Makefile \
		--include=Kbuild --exclude='*' "$src/" "$mdir/"
	;;
*)
	echo "[module] ZRAM_KERNEL must be debian, debian-6.12 or debug" >&2
	exit 2
	;;
esac
if [ "${ZRAM_MULTI_COMP:-y}" != n ]; then
	opts=(CONFIG_ZRAM_MULTI_COMP=y)
	kcflags+=(-DCONFIG_ZRAM_MULTI_COMP=1)
fi
[ "${#kcflags[@]}" -eq 0 ] || opts+=("KCFLAGS=${kcflags[*]}")

echo "[module] building $mdir/zram.ko for $kver (W=1 ${opts[*]} $*)"
"${in_toolchain[@]}" make -C "$kdir" M="$mdir" W=1 "${opts[@]}" "$@" modules 2>&1 |
	tee "$log"
# kbuild skips sparse with a make warning (no "warning:") when it finds
# none it trusts
if grep -q 'is not available or not up to date' "$log"; then
	echo "[module] FAILED: kbuild did not run sparse (see $log)"
	exit 1
fi
if grep -E 'warning:|error:' "$log" | grep -v '^make' >/dev/null; then
	echo "[module] FAILED: the build printed warnings (see $log)"
	exit 1
fi
ls -l "$mdir/zram.ko"
