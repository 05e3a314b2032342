#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on every driver file.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tools/kernel/fetch.sh" >/dev/null
checkpatch=$top/.cache/linux-source/scripts/checkpatch.pl
rc=0

for f in "$top"/drivers/block/zram/*.[ch] "$top"/drivers/block/zram/Kconfig \
	"$top"/drivers/block/zram/Makefile; do
	case $f in
	*.mod.c) continue ;;
	esac
	if ! perl "$checkpatch" --strict --no-tree --quiet -f "$f"; then
		rc=1
	fi
done
if [ "$rc" -eq 0 ]; then
	echo "[checkpatch] clean"
fi
exit "$rc"
