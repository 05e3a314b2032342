#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build tools/testing/slot-lock-canary (a module that misuses zram's slot
# lock through the driver's zram_slot.h) for the debug kernel, into
# .cache/kdebug/slot-lock-canary/zram_slot_lock_canary.ko, with the
# kernel's compiler (the root of tools/kernel/toolchain.sh). run_all.sh
# loads it after the last test on ours: its reports prove that lockdep and
# the atomic-sleep check still see the slot lock.
#
# Usage: tools/kernel/build-slot-lock-canary.sh
# Prints the module's path as its last line.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$("$top/tools/kernel/build-debug.sh")
kver=$(sed -n 's/^KVER=//p' <<<"$out")
kdir=$(sed -n 's/^KROOT=//p' <<<"$out")/lib/modules/$kver/build
mdir=$top/.cache/kdebug/slot-lock-canary
log=$mdir/build.log

mkdir -p "$mdir"
cp "$top/tools/testing/slot-lock-canary/zram_slot_lock_canary.c" "$mdir/"
{
	echo 'obj-m := zram_slot_lock_canary.o'
	echo "ccflags-y := -I$top/drivers/block/zram"
} >"$mdir/Kbuild"
if ! "$top/tools/kernel/toolchain.sh" run -- \
	make -C "$kdir" M="$mdir" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "[slot-lock-canary] build failed" >&2
	exit 1
fi
echo "$mdir/zram_slot_lock_canary.ko"
