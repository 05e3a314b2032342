#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on every driver file and on the
# selftests' C helpers: 7.3's checkpatch (the primary kernel's tree, as
# fetch.sh caches it), run from the top of that tree as in-tree development
# does: checkpatch then knows the kernel's own identifiers (CamelCase
# library APIs such as lz4's are not reported against the files that call
# them).

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/tools/kernel/fetch.sh" --series 7.3 >/dev/null
src=$top/.cache/linux-source
rc=0

cd "$src"
for f in "$top"/drivers/block/zram/*.[ch] "$top"/drivers/block/zram/Kconfig \
	"$top"/drivers/block/zram/Makefile "$top"/tools/testing/selftests/zram/*.c; do
	case $f in
	*.mod.c) continue ;;
	esac
	if ! perl scripts/checkpatch.pl --strict --quiet -f "$f"; then
		rc=1
	fi
done
if [ "$rc" -eq 0 ]; then
	echo "[checkpatch] clean"
fi
exit "$rc"
