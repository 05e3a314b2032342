#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packed writeback of recompressed slots: text is stored with a primary
# algorithm, recompress type=idle gives the idle slots smaller objects
# from a secondary one, and an idle writeback with compressed_writeback
# on packs those objects as they are. Each packed slot keeps the priority
# of the algorithm that made its object (block_state shows "w" and "r"),
# so a read decompresses it with that algorithm: every byte reads back the
# same through chained O_DIRECT reads, buffered reads after drop_caches
# and misaligned O_DIRECT reads (each page split over two bio_vecs:
# synchronous reads), and no read fails. Skips without recompression
# (CONFIG_ZRAM_MULTI_COMP) or compressed_writeback (stock 6.12).

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_require_nullb
zram_require_writeback
zram_require_packed
zram_require_block_state
zram_require_cmd fio
zram_words_file 256 || ktap_skip_all "cannot make the data"
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"
pages=256
sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)

ktap_plan 9

# setup: as zram_recomp_init, with compressed_writeback on (before disksize)
setup() {
	echo 1 >"$ZRAM_SYS/reset" &&
		echo 1 >"$ZRAM_SYS/compressed_writeback" &&
		echo "$NULLB" >"$ZRAM_SYS/backing_dev" &&
		echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm" &&
		echo "algo=$RECOMP_SECONDARY" >"$ZRAM_SYS/recomp_algorithm" &&
		echo 16M >"$ZRAM_SYS/disksize"
}

setup || ktap_bail "cannot set up the device"
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
ktap_check "recompress type=idle" \
	expect_errno OK "$ZRAM_SYS/recompress" type=idle
recomp=$(zram_block_state_count '^....r')
ktap_info "$RECOMP_PRIMARY -> $RECOMP_SECONDARY: $recomp slots recompressed"
ktap_check "slots recompressed" test "$recomp" -gt 0
# recompress took the idle mark of the slots it looked at
echo all >"$ZRAM_SYS/idle"
ktap_check "idle writeback" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_info "bd_stat $(bd_stat), $(zram_wb_stat packed_objects) packed objects" \
	"in $(zram_wb_stat packed_blocks) blocks"
ktap_eq "the recompressed slots are packed on the backing device" \
	"$(zram_block_state_count '^.w..r')" "$recomp"
ktap_eq "O_DIRECT reads: same checksum" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
zram_drop_caches
ktap_eq "buffered reads after drop_caches: same checksum" \
	"$(zram_read_buffered "$ZRAM_DEV" "$pages")" "$sum"
ktap_check "O_DIRECT reads into buffers 512 bytes into a page" \
	fio --name=misaligned --filename="$ZRAM_DEV" --size=$((pages * 4096)) \
	--bs=64k --direct=1 --ioengine=psync --rw=read --iomem_align=512 \
	--output=/dev/null
ktap_eq "no read failed (io_stat failed_reads)" "$(zram_field io_stat 1)" 0
ktap_eq "still packed after the reads" "$(zram_block_state_count '^.w..r')" "$recomp"
ktap_finish
