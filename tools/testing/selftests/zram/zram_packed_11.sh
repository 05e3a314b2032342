#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A packed slot reads back whatever context its backing device completes
# in: a null_blk that completes in the submitting task (irqmode=0), in
# softirq (irqmode=1), or from a timer in hard irq (irqmode=2). The
# driver decompresses in that task, in that softirq, or in the softirq it
# hands the timer's completion to. For each mode, mixed pages and 128
# half-compressible fio pages are written back packed; they read back
# with their checksum through O_DIRECT reads chained to the zram bio, and
# fio verifies them through RWF_NOWAIT reads.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_pv_init
modes=(0 1 2)
ktap_plan $((${#modes[@]} * 3))

for mode in "${modes[@]}"; do
	nullb_opts=("irqmode=$mode")
	[ "$mode" = 2 ] && nullb_opts+=(completion_nsec=20000)
	zram_nullb 16 "${nullb_opts[@]}" ||
		ktap_skip_all "cannot create a null_blk with irqmode=$mode"
	zram_packed_attach "$NULLB" 16M
	sum=$(zram_wb_fill_kinds) || ktap_bail "cannot fill pages 0-71"
	zram_pv_job "$ZRAM_DEV" pk 512k 512k --buffer_compress_percentage=50 \
		--refill_buffers --buffer_compress_chunk=4k ||
		ktap_bail "cannot write pages 128-255"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	objects=$(zram_wb_stat packed_objects)
	ktap_info "irqmode=$mode: bd_stat $(bd_stat), $objects packed objects"
	ktap_check "irqmode=$mode: the compressible pages are written back packed" \
		test "${objects:-0}" -ge 32

	reads=$(bd_reads)
	got=$(zram_read_all "$ZRAM_DEV" 72)
	ktap_eq "irqmode=$mode: O_DIRECT reads from the backing device return the data" \
		"$got $(($(bd_reads) > reads))" "$sum 1"

	zram_pv_nowait_read "$ZRAM_DEV" pk 512k 512k
	ktap_check "irqmode=$mode: RWF_NOWAIT reads verify (or get EAGAIN)" \
		zram_pv_nowait_ok 128
done
ktap_finish
