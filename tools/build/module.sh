#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build drivers/block/zram as an out-of-tree module against the cached Debian
# headers with W=1 (and sparse when C=1 is given). Any compiler or sparse
# warning fails the build.
#
# Usage: tools/build/module.sh [C=1]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tools/kernel/fetch.sh" | sed -n 's/^KVER=//p')
kdir=$top/.cache/root/lib/modules/$kver/build
log=$top/.cache/module-build.log

echo "[module] building zram.ko for $kver (W=1 $*)"
make -C "$kdir" M="$top/drivers/block/zram" W=1 "$@" modules 2>&1 | tee "$log"
if grep -E 'warning:|error:' "$log" | grep -v '^make' >/dev/null; then
	echo "[module] FAILED: the build printed warnings (see $log)"
	exit 1
fi
ls -l "$top/drivers/block/zram/zram.ko"
