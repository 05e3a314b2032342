#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of the VM harness: load zram (ZRAM=stock|ours, default stock),
# make a 256 MiB /dev/zram0, write and verify it with fio, reset.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
"$here/zram-load.sh" "${ZRAM:-stock}"

echo 256M >/sys/block/zram0/disksize
zramctl
fio --name=smoke --filename=/dev/zram0 --rw=write --bs=128k --size=128M \
	--ioengine=psync --direct=1 --buffer_compress_percentage=50 \
	--verify=crc32c --do_verify=1 --output-format=terse --terse-version=3 |
	awk -F';' '{ printf "fio: wrote %d KiB at %d KiB/s, read %d KiB at %d KiB/s\n", $47, $48, $6, $7 }'
cat /sys/block/zram0/mm_stat
echo 1 >/sys/block/zram0/reset
echo "smoke: ok"
