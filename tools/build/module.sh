#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build drivers/block/zram as an out-of-tree module against the cached Debian
# headers with W=1 (and sparse when C=1 is given). Any compiler or sparse
# warning fails the build.
#
# Recompression (CONFIG_ZRAM_MULTI_COMP) is built in, as the kselftest
# config asks, although Debian's kernel has the option off. With
# ZRAM_MULTI_COMP=n it is left out, and the module is built from a copy of
# the sources in .cache/nocomp/zram, so drivers/block/zram/zram.ko stays
# the one with it.
#
# With ZRAM_KERNEL=debug the module is built the same way against the debug
# kernel's tree (tools/kernel/build-debug.sh, which has MULTI_COMP on), from
# a copy of the sources in .cache/kdebug/zram (zram.ko there), so both
# builds can coexist.
#
# Usage: [ZRAM_KERNEL=debian|debug] [ZRAM_MULTI_COMP=n] tools/build/module.sh [C=1]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/drivers/block/zram
opts=()

# The Debian kernel has BTF, so kbuild runs pahole on every module; without
# it the build fails only at the very end, with "pahole: not found".
if ! command -v pahole >/dev/null; then
	echo "[module] error: pahole (package dwarves) is missing;" \
		"make module installs it (tools/testing/vm/deps.sh)" >&2
	exit 1
fi

case ${ZRAM_KERNEL:-debian} in
debian)
	kver=$("$top/tools/kernel/fetch.sh" | sed -n 's/^KVER=//p')
	kdir=$top/.cache/root/lib/modules/$kver/build
	mdir=$src
	log=$top/.cache/module-build.log
	opts=(CONFIG_ZRAM_MULTI_COMP=y KCFLAGS=-DCONFIG_ZRAM_MULTI_COMP=1)
	if [ "${ZRAM_MULTI_COMP:-y}" = n ]; then
		mdir=$top/.cache/nocomp/zram
		log=$top/.cache/nocomp/module-build.log
		opts=()
		rm -rf "$mdir"
		mkdir -p "$mdir"
		cp "$src"/*.[ch] "$src/Makefile" "$mdir/"
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
	rsync -a --delete --include='*.[ch]' --include=Makefile --include=Kbuild \
		--exclude='*' "$src/" "$mdir/"
	;;
*)
	echo "[module] ZRAM_KERNEL must be debian or debug" >&2
	exit 2
	;;
esac

echo "[module] building $mdir/zram.ko for $kver (W=1 ${opts[*]} $*)"
make -C "$kdir" M="$mdir" W=1 "${opts[@]}" "$@" modules 2>&1 | tee "$log"
if grep -E 'warning:|error:' "$log" | grep -v '^make' >/dev/null; then
	echo "[module] FAILED: the build printed warnings (see $log)"
	exit 1
fi
ls -l "$mdir/zram.ko"
