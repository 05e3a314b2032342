#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel's own kmemleak sample (samples/kmemleak/kmemleak-test.c
# of the pristine linux-source, unchanged) as a module of the debug kernel,
# into .cache/kdebug/kmemleak-test/kmemleak-test.ko, with the kernel's
# compiler (the root of tools/kernel/toolchain.sh). Loading it leaks
# objects on purpose: run_all.sh loads it once per boot to prove that
# kmemleak and the report scanner see a leak before it trusts an empty
# scan of zram.
#
# Usage: tools/kernel/build-kmemleak-test.sh
# Prints the module's path as its last line.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$("$top/tools/kernel/build-debug.sh")
kver=$(sed -n 's/^KVER=//p' <<<"$out")
kdir=$(sed -n 's/^KROOT=//p' <<<"$out")/lib/modules/$kver/build
sample=$top/.cache/linux-source/samples/kmemleak/kmemleak-test.c
mdir=$top/.cache/kdebug/kmemleak-test
log=$mdir/build.log

[ -e "$sample" ] || { echo "[kmemleak-test] no $sample" >&2; exit 1; }
mkdir -p "$mdir"
cp "$sample" "$mdir/"
echo 'obj-m := kmemleak-test.o' >"$mdir/Kbuild"
if ! "$top/tools/kernel/toolchain.sh" run -- \
	make -C "$kdir" M="$mdir" modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "[kmemleak-test] build failed" >&2
	exit 1
fi
echo "$mdir/kmemleak-test.ko"
