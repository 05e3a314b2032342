#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packed slots read back intact while a CPU goes offline and online
# again. The backing device completes from a timer (hard irq), so the
# last block read of a packed slot hands its decompression to the
# softirq work of the CPU it completed on; a CPU that goes offline with
# such work pending has it run by another CPU, and none of those reads
# may be lost or get another slot's data. CPU 1 goes offline and online
# in a loop while io_uring reads verify every page, ten times over
# (zram_scaled: each pass is the same race).
# Skips without a second CPU that can go offline.
#
# Whether a read's work is pending at the moment its CPU goes offline is
# up to timing: the test makes that likely (200 us completions, iodepth
# 16, offline/online cycles throughout), it cannot force it.

. "$(dirname "$0")/zram_lib.sh"

cpu1=/sys/devices/system/cpu/cpu1/online
passes=$(zram_scaled 10 3)
size=4M

zram_require_cmd fio
zram_wb_device
zram_require_packed
[ -w "$cpu1" ] || ktap_skip_all "no CPU 1 that can go offline"
zram_nullb 16 irqmode=2 completion_nsec=200000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_require_fio_uring "$NULLB"
zram_pv_init

# cpu1_cycles STOP COUNT: offline and online CPU 1 until file STOP
# exists, at most 100 times; the number of cycles goes to file COUNT.
cpu1_cycles() {
	local n=0

	while [ ! -e "$1" ] && [ "$n" -lt 100 ]; do
		echo 0 >"$cpu1" 2>/dev/null || break
		sleep 0.05
		echo 1 >"$cpu1" || break
		n=$((n + 1))
		sleep 0.2
	done
	echo "$n" >"$2"
}

ktap_plan 4
echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_pv_job "$ZRAM_DEV" hp 0 "$size" --buffer_compress_percentage=50 \
	--refill_buffers || ktap_bail "cannot write $size"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback" || ktap_bail "writeback failed"
packed=$(zram_wb_stat packed_objects)
ktap_info "setup: bd_stat $(bd_stat), ${packed:-0} packed objects"
ktap_check "the pages were packed onto the backing device" \
	test "${packed:-0}" -gt 0

reads0=$(bd_reads)
zram_defer sh -c "echo 1 >$cpu1"
cpu1_cycles "$ZRAM_PV_WORK/stop" "$ZRAM_PV_WORK/cycles" &
cycler=$!
ok=0
for ((i = 1; i <= passes; i++)); do
	zram_pv_verify "$ZRAM_DEV" hp 0 "$size" --ioengine=io_uring \
		--iodepth=16 || break
	ok=$((ok + 1))
done
touch "$ZRAM_PV_WORK/stop"
wait "$cycler"
cycles=$(cat "$ZRAM_PV_WORK/cycles")
ktap_info "$ok of $passes passes verified, $((PV_VERIFIED + 0)) reads in the" \
	"last, CPU 1 offline and online $cycles times," \
	"$(($(bd_reads) - reads0)) backing device reads"
ktap_eq "every pass verified every page" "$ok" "$passes"
ktap_check "CPU 1 went offline during the reads" test "$cycles" -gt 0
ktap_check "the reads went to the backing device" \
	test "$(($(bd_reads) - reads0))" -gt 0
ktap_finish
