#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writeback into single-block holes where some blocks fail. The backing
# device (device-mapper over a 256-block null_blk that completes from a
# timer) is filled, then every other slot is discarded, so the free
# blocks are single holes. Then one block in every 32 fails its writes
# (dm error target) while the others work, and new idle slots are written
# back into the holes, whole pages and then packed objects (where the
# driver has compressed_writeback; an object runs on from one hole into the
# next). A request writes several holes, one bio each, and failing and
# working bios of one request complete in any order (an error at once, a
# good write later); its slots stay in RAM. Either way the writeback fails
# with EIO and no slot whose block failed is recorded as written back:
# everything reads back intact after drop_caches and bd_count matches the
# slots on the backing device; bd_writes grows by the blocks that reached
# the null_blk (its own write statistics), also those of a request that
# failed elsewhere; once the device works, the writeback succeeds, and
# discarding everything frees every block.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_dm
zram_require_cmd fio blkdiscard
zram_pv_init
full=255
new=64
pages=$((256 + new))
sectors=2048

ktap_plan 16

# table BAD: the dm table: linear over the null_blk, with blocks 9, 41,
# 73, ... (one in 32, all of them holes) failing when BAD is 1.
table() {
	local b s=0

	for ((b = 9; b < 256; b += 32)); do
		if [ "$1" = 1 ]; then
			echo "$s $((b * 8 - s)) linear $NULLB $s"
			echo "$((b * 8)) 8 error"
			s=$(((b + 1) * 8))
		fi
	done
	echo "$s $((sectors - s)) linear $NULLB $s"
}

# nullb_blocks_written: 4 KiB blocks the null_blk under $DM has written
nullb_blocks_written() {
	echo $(($(zram_disk_stat "$NULLB" 7) / 8))
}

reload() {
	dmsetup suspend "$DM_NAME" &&
		table "$1" | dmsetup load "$DM_NAME" &&
		dmsetup resume "$DM_NAME"
}

# mixed KIND: one run (8 results); KIND packed turns compressed_writeback
# on and writes half-compressible pages, so objects share blocks.
mixed() {
	local kind=$1 i r sum

	zram_nullb 1 irqmode=2 completion_nsec=20000 ||
		ktap_skip_all "cannot create a null_blk with timer completions"
	zram_dm mixed "$(table 0)" || ktap_skip_all "cannot create a dm device"
	if [ "$kind" = packed ]; then
		zram_packed_attach "$DM" 16M
	else
		zram_wb_attach "$DM" 16M
	fi
	zram_fill_pages "$ZRAM_DEV" 0 "$full" random
	echo all >"$ZRAM_SYS/idle"
	zram_write "$ZRAM_SYS/writeback" idle >/dev/null
	zram_discard_alternate "$ZRAM_DEV" "$full"
	ktap_eq "$kind: the free blocks are single holes" \
		"$(bd_count)" $((full / 2))
	if [ "$kind" = packed ]; then
		zram_pv_job "$ZRAM_DEV" new $((256 * 4096)) $((new * 4096)) \
			--buffer_compress_percentage=50 --refill_buffers \
			--buffer_compress_chunk=4k || ktap_bail "cannot write new pages"
	else
		zram_fill_pages "$ZRAM_DEV" 256 "$new" random
	fi
	sum=$(zram_read_all "$ZRAM_DEV" "$pages")
	reload 1 || ktap_bail "cannot load the failing table"
	echo all >"$ZRAM_SYS/idle"
	writes=$(bd_writes)
	reached=$(nullb_blocks_written)
	r=$(zram_write "$ZRAM_SYS/writeback" idle)
	ktap_info "$kind: writeback into the holes: $r, bd_stat $(bd_stat)"
	ktap_eq "$kind: writeback with failing blocks among the holes -> EIO" "$r" EIO
	ktap_eq "$kind: bd_writes grew by the blocks that reached the device" \
		$(($(bd_writes) - writes)) $(($(nullb_blocks_written) - reached))
	zram_drop_caches
	ktap_eq "$kind: data intact" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
	ktap_check "$kind: bd_count == blocks the written-back slots hold" \
		zram_blocks_consistent
	reload 0 || ktap_bail "cannot load the working table"
	echo all >"$ZRAM_SYS/idle"
	ktap_check "$kind: writeback once the device works" \
		expect_errno OK "$ZRAM_SYS/writeback" idle
	zram_drop_caches
	ktap_eq "$kind: data intact after it" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
	blkdiscard "$ZRAM_DEV"
	ktap_eq "$kind: discard of everything frees every block" "$(bd_count)" 0
}

mixed whole
if zram_attr_exists compressed_writeback; then
	mixed packed
else
	ktap_skip_n 8 packed "no compressed_writeback (stock 6.12)"
fi
ktap_finish
