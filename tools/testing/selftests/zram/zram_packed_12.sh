#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packed objects whose two blocks are apart read back on every read path,
# and a read reads only the sectors that hold its object. Incompressible
# pages fill a 255-block backing device, then every other one is
# discarded: the free blocks are single holes between used ones.
# Half-compressible pages written back packed then go into those holes,
# and an object that runs past the end of its block goes on in the next
# hole, two blocks away, so reading it takes two bios
# (packed_split_reads in debugfs wb_stat). The device completes from a
# timer, as hardware does from an interrupt. Every page reads back with
# its checksum through O_DIRECT reads chained to the zram bio, buffered
# reads after drop_caches, fio verify with RWF_NOWAIT reads and with
# buffers split over two bio_vecs (synchronous reads). All of it runs
# twice: on a device with 4 KiB logical blocks, where a read reads whole
# blocks, and on one with 512-byte ones, where it reads the sectors its
# object spans: the second part of a split read lands in the middle of
# the read buffer, and the backing device's sector count shows what was
# read.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_pv_init
full=255
first=256
packed=160
pages=$((first + packed))
sizes=(4096 512)

ktap_plan $((${#sizes[@]} * 10))

# Sectors read from the backing device since it was created.
nullb_sectors_read() {
	zram_disk_stat "$NULLB" 3
}

# The packed pages read once with O_DIRECT; prints "SECTORS BLOCKS", the
# backing device's sectors read and the bd_stat blocks it counts.
read_packed_range() {
	local sectors blocks

	sectors=$(nullb_sectors_read)
	blocks=$(bd_reads)
	dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip="$first" count="$packed" \
		iflag=direct 2>/dev/null
	echo "$(($(nullb_sectors_read) - sectors)) $(($(bd_reads) - blocks))"
}

# One run on a backing device with logical blocks of LBS bytes.
holes() {
	local lbs=$1 bytes objects sectors blocks split sum rc=0

	# 1 MiB: 256 blocks, block 0 unused
	zram_nullb 1 "blocksize=$lbs" irqmode=2 completion_nsec=20000 ||
		ktap_skip_all "cannot create a null_blk with timer completions"
	zram_packed_attach "$NULLB" 16M
	zram_fill_pages "$ZRAM_DEV" 0 "$full" random
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	ktap_eq "$lbs: incompressible pages fill the backing device" \
		"$(bd_count)" "$full"
	zram_discard_alternate "$ZRAM_DEV" "$full"
	ktap_eq "$lbs: discarding every other page frees every other block" \
		"$(bd_count)" $((full / 2))

	zram_pv_job "$ZRAM_DEV" split $((first * 4096)) $((packed * 4096)) \
		--buffer_compress_percentage=50 --refill_buffers \
		--buffer_compress_chunk=4k || ktap_bail "cannot write the packed pages"
	sum=$(zram_read_all "$ZRAM_DEV" "$pages")
	echo all >"$ZRAM_SYS/idle"
	ktap_check "$lbs: packed writeback into the holes" \
		expect_errno OK "$ZRAM_SYS/writeback" idle
	objects=$(zram_wb_stat packed_objects)
	bytes=$(zram_wb_stat packed_bytes)
	ktap_info "$lbs: bd_stat $(bd_stat), $objects packed objects of" \
		"$bytes bytes in $(zram_wb_stat packed_blocks) blocks"
	ktap_eq "$lbs: every packed page is on the backing device" \
		"$(zram_block_state_range "$first" $((pages - 1)) w)" "$packed"

	split=$(zram_wb_stat packed_split_reads)
	read -r sectors blocks < <(read_packed_range)
	split=$(($(zram_wb_stat packed_split_reads) - split))
	ktap_info "$lbs: reads of the packed pages: $sectors sectors of" \
		"$blocks blocks, $split of them took two bios"
	if [ "$lbs" = 4096 ]; then
		ktap_eq "$lbs: reads read whole blocks" "$sectors" $((blocks * 8))
	else
		ktap_check "$lbs: reads read only the sectors of their objects" \
			test $((sectors * 512)) -ge "$bytes" -a \
			$((sectors * 512)) -le $((bytes + objects * 1024)) -a \
			"$sectors" -lt $((blocks * 8))
	fi
	ktap_check "$lbs: some objects straddle blocks apart: reads of two bios" \
		test "$split" -gt 0
	ktap_eq "$lbs: O_DIRECT reads: same checksum" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
	zram_drop_caches
	ktap_eq "$lbs: buffered reads after drop_caches: same checksum" \
		"$(zram_read_buffered "$ZRAM_DEV" "$pages")" "$sum"

	zram_pv_nowait_read "$ZRAM_DEV" split $((first * 4096)) \
		$((packed * 4096))
	ktap_check "$lbs: RWF_NOWAIT reads verify (or get EAGAIN)" \
		zram_pv_nowait_ok "$packed"
	zram_pv_verify "$ZRAM_DEV" split $((first * 4096)) $((packed * 4096)) \
		--iomem_align=512 || rc=$?
	ktap_eq "$lbs: fio verify, buffers split over two bio_vecs (synchronous reads)" \
		"$rc $PV_VERIFIED" "0 $packed"
}

for lbs in "${sizes[@]}"; do
	holes "$lbs"
done
ktap_finish
