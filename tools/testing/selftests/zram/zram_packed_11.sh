#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A packed slot reads back whatever context its backing device completes
# in: a null_blk that completes in the submitting task (irqmode=0), in
# softirq (irqmode=1), or from a timer in hard irq (irqmode=2). The
# driver decompresses in that task, in that softirq, or in the softirq it
# hands the timer's completion to. The same over a backing device without
# nowait support (dm-delay over a null_blk), where an RWF_NOWAIT read of
# a packed slot cannot be issued without blocking: it gets EAGAIN (or,
# once served, its data), never an error. For each device, mixed pages
# and 128 half-compressible fio pages are written back packed; they read
# back with their checksum through O_DIRECT reads chained to the zram
# bio, and fio verifies them through RWF_NOWAIT reads.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_pv_init
zram_pv_nonowait_dev
nonowait=$DM
modes=(0 1 2 dm-delay)
ktap_plan $((${#modes[@]} * 3))

for mode in "${modes[@]}"; do
	if [ "$mode" = dm-delay ]; then
		backing=$nonowait
	else
		nullb_opts=("irqmode=$mode")
		[ "$mode" = 2 ] && nullb_opts+=(completion_nsec=20000)
		zram_nullb 16 "${nullb_opts[@]}" ||
			ktap_skip_all "cannot create a null_blk with irqmode=$mode"
		backing=$NULLB
		mode=irqmode=$mode
	fi
	zram_packed_attach "$backing" 16M
	sum=$(zram_wb_fill_kinds) || ktap_bail "cannot fill pages 0-71"
	zram_pv_job "$ZRAM_DEV" pk 512k 512k --buffer_compress_percentage=50 \
		--refill_buffers --buffer_compress_chunk=4k ||
		ktap_bail "cannot write pages 128-255"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	objects=$(zram_wb_stat packed_objects)
	ktap_info "$mode: bd_stat $(bd_stat), $objects packed objects"
	ktap_check "$mode: the compressible pages are written back packed" \
		test "${objects:-0}" -ge 32

	reads=$(bd_reads)
	got=$(zram_read_all "$ZRAM_DEV" 72)
	ktap_eq "$mode: O_DIRECT reads from the backing device return the data" \
		"$got $(($(bd_reads) > reads))" "$sum 1"

	zram_pv_nowait_read "$ZRAM_DEV" pk 512k 512k
	ktap_check "$mode: RWF_NOWAIT reads verify (or get EAGAIN)" \
		zram_pv_nowait_ok 128
done
ktap_finish
