#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the nowait soak (tools/testing/vm/nowait-soak.sh): the
# io_uring job of an io_uring user, in cycles, for SOAK_SECS seconds.
# Backing device: a memory-backed null_blk that completes from a timer
# (configfs attributes irqmode=2 completion_nsec=20000), zram disksize 1G.
# A cycle: fio random writes (4-64 KiB, iodepth 16, O_DIRECT, crc32c
# headers, half compressible) over 384 MiB; all idle; writeback; caches
# dropped; the same job with --verify_only. Odd cycles keep writebacks
# running during both fio runs. Prints one line per cycle and a summary:
#   nowait soak: N cycles, X GiB verified, E errors
# Exit status 0 when no cycle had an error.
#
# Usage: nowait-soak.sh stock|ours   (SOAK_SECS [900], SOAK_MB [384])

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
driver=${1:-ours}
secs=${SOAK_SECS:-900}
mb=${SOAK_MB:-384}
zsys=/sys/block/zram0
work=/tmp/soak
stop=$work/stop

say() { echo "[soak] $*"; }

# null_blk and the bd_stat fields
# shellcheck source=../../selftests/zram/zram_sys.sh
. "$here/../../selftests/zram/zram_sys.sh"
ZRAM_SYS=$zsys

"$here/zram-load.sh" "$driver" || exit 1
# 2 GiB, 512-byte blocks (null_blk's default, which the soak always had)
zram_nullb_load || exit 1
zram_nullb_create nullb_soak 2048 blocksize=512 irqmode=2 \
	completion_nsec=20000 || exit 1
echo /dev/nullb_soak >"$zsys/backing_dev" || exit 1
echo 1G >"$zsys/disksize" || exit 1
mkdir -p "$work"

job=(--name=soak --filename=/dev/zram0 --ioengine=io_uring --direct=1
	--rw=randwrite --bsrange=4k-64k --iodepth=16 --size="${mb}M"
	--verify=crc32c --buffer_compress_percentage=50 --refill_buffers
	--randrepeat=1 --verify_state_save=0)

writeback_loop() {
	while [ ! -e "$stop" ]; do
		echo all >"$zsys/idle" 2>/dev/null
		echo idle >"$zsys/writeback" 2>/dev/null
		sleep 0.2
	done
}

cycles=0
errors=0
verified_mb=0
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt "$end" ]; do
	cycles=$((cycles + 1))
	wb_pid=
	rm -f "$stop"
	if [ $((cycles % 2)) = 1 ]; then
		writeback_loop &
		wb_pid=$!
	fi
	rc=0
	(cd "$work" && fio "${job[@]}" --do_verify=0) >"$work/write.log" 2>&1 ||
		rc=1
	echo all >"$zsys/idle"
	echo idle >"$zsys/writeback" 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	(cd "$work" && fio "${job[@]}" --verify_only) >"$work/verify.log" 2>&1 ||
		rc=1
	if [ -n "$wb_pid" ]; then
		touch "$stop"
		wait "$wb_pid"
	fi
	if grep -q -E 'error|err=[1-9]|verify' "$work/write.log" "$work/verify.log"; then
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		verified_mb=$((verified_mb + mb))
	else
		errors=$((errors + 1))
		grep -h -E 'error|err=|verify' "$work/write.log" "$work/verify.log" |
			head -5 | sed 's/^/[soak]   /'
	fi
	say "cycle $cycles (writeback loop $((cycles % 2))): rc $rc," \
		"bd_stat $(bd_stat)"
done
gib=$(awk -v m="$verified_mb" 'BEGIN { printf "%.1f", m / 1024 }')
echo "nowait soak: $cycles cycles, $gib GiB verified, $errors errors ($driver)"
[ "$errors" = 0 ]
