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
# Usage: [ZRAM_MULTI_COMP=n] tools/build/module.sh [C=1]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tools/kernel/fetch.sh" | sed -n 's/^KVER=//p')
kdir=$top/.cache/root/lib/modules/$kver/build
log=$top/.cache/module-build.log
src=$top/drivers/block/zram
mdir=$src
opts=(CONFIG_ZRAM_MULTI_COMP=y KCFLAGS=-DCONFIG_ZRAM_MULTI_COMP=1)

if [ "${ZRAM_MULTI_COMP:-y}" = n ]; then
	mdir=$top/.cache/nocomp/zram
	log=$top/.cache/nocomp/module-build.log
	opts=()
	rm -rf "$mdir"
	mkdir -p "$mdir"
	cp "$src"/*.[ch] "$src/Makefile" "$mdir/"
fi

echo "[module] building $mdir/zram.ko for $kver (W=1 ${opts[*]} $*)"
make -C "$kdir" M="$mdir" W=1 "${opts[@]}" "$@" modules 2>&1 | tee "$log"
if grep -E 'warning:|error:' "$log" | grep -v '^make' >/dev/null; then
	echo "[module] FAILED: the build printed warnings (see $log)"
	exit 1
fi
ls -l "$mdir/zram.ko"
