#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packed objects whose two blocks are apart read back on every read path.
# Incompressible pages fill a 255-block backing device, then every other
# one is discarded: the free blocks are single holes between used ones.
# Half-compressible pages written back packed then go into those holes,
# and an object that runs past the end of its block goes on in the next
# hole, two blocks away, so reading it takes two bios
# (packed_split_reads in debugfs wb_stat). The device completes from a
# timer, as hardware does from an interrupt. Every page reads back with
# its checksum through O_DIRECT reads chained to the zram bio, buffered
# reads after drop_caches, fio verify with RWF_NOWAIT reads and with
# buffers split over two bio_vecs (synchronous reads).

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio blkdiscard
zram_wb_device
zram_require_packed
# 1 MiB: 256 blocks, block 0 unused
zram_nullb 1 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_pv_init
full=255
first=256
packed=160
pages=$((first + packed))

ktap_plan 9

echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 "$full" random
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
ktap_eq "incompressible pages fill the backing device" "$(bd_count)" "$full"
for ((i = 0; i < full; i += 2)); do
	blkdiscard -o $((i * 4096)) -l 4096 "$ZRAM_DEV"
done
ktap_eq "discarding every other page frees every other block" \
	"$(bd_count)" $((full / 2))

zram_pv_job "$ZRAM_DEV" split $((first * 4096)) $((packed * 4096)) \
	--buffer_compress_percentage=50 --refill_buffers \
	--buffer_compress_chunk=4k || ktap_bail "cannot write the packed pages"
sum=$(zram_read_all "$ZRAM_DEV" "$pages")
echo all >"$ZRAM_SYS/idle"
ktap_check "packed writeback into the holes" \
	expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_info "bd_stat $(bd_stat), $(zram_wb_stat packed_objects) packed objects" \
	"in $(zram_wb_stat packed_blocks) blocks"
ktap_eq "every packed page is on the backing device" \
	"$(zram_block_state_range "$first" $((pages - 1)) w)" "$packed"

split=$(zram_wb_stat packed_split_reads)
ktap_eq "O_DIRECT reads: same checksum" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
split=$(($(zram_wb_stat packed_split_reads) - split))
ktap_info "$split reads took two bios"
ktap_check "some objects straddle blocks apart: reads of two bios" \
	test "$split" -gt 0
zram_drop_caches
ktap_eq "buffered reads after drop_caches: same checksum" \
	"$(zram_read_buffered "$ZRAM_DEV" "$pages")" "$sum"

zram_pv_nowait_read "$ZRAM_DEV" split $((first * 4096)) $((packed * 4096))
ktap_check "RWF_NOWAIT reads verify (or get EAGAIN)" zram_pv_nowait_ok "$packed"
rc=0
zram_pv_verify "$ZRAM_DEV" split $((first * 4096)) $((packed * 4096)) \
	--iomem_align=512 || rc=$?
ktap_eq "fio verify, buffers split over two bio_vecs (synchronous reads)" \
	"$rc $PV_VERIFIED" "0 $packed"
ktap_finish
