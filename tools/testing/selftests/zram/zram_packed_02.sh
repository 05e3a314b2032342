#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packed writeback keeps mixed data intact on every read path: compressible
# text, the benchmark's 50% compressible data, incompressible (whole pages),
# same-filled pages and tiny objects (a 12-byte pattern fio verifies) are
# written back with compressed_writeback on, to a backing device that
# completes from a timer; they take fewer blocks than slots, and read back
# with the same checksum through O_DIRECT reads (chained backing reads,
# decompressed after completion), buffered reads after drop_caches, and
# fio verify passes with aligned psync, misaligned buffers (each page split
# over two bio_vecs: synchronous reads) and io_uring (REQ_NOWAIT).

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_require_packed
zram_nullb 64 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
work=$(mktemp -d /tmp/zram-pk2.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
pages=4096

# verify ENGINE [FIO_OPTION...]: fio checks the pattern of pages 2048-3071
# shellcheck disable=SC2317 # called through ktap_check
verify() {
	local engine=$1

	shift
	(cd "$work" && fio --name=pat --filename="$ZRAM_DEV" --offset=8M \
		--size=4M --bs=64k --direct=1 --ioengine="$engine" \
		--rw=write --verify=pattern --verify_pattern='"zram"%o' \
		--verify_only "$@" >"$work/verify.log" 2>&1) && return 0
	grep -E 'verify|error' "$work/verify.log" | head -5 | sed 's/^/# /'
	return 1
}

ktap_plan 10

echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 512 text
zram_fill_pages "$ZRAM_DEV" 512 256 random
zram_fill_pages "$ZRAM_DEV" 768 256 zero
zram_fill_fio "$ZRAM_DEV" 1024 1024
(cd "$work" && fio --name=pat --filename="$ZRAM_DEV" --offset=8M --size=4M \
	--bs=64k --direct=1 --ioengine=psync --rw=write --verify=pattern \
	--verify_pattern='"zram"%o' --do_verify=0 >/dev/null 2>&1) ||
	ktap_bail "fio cannot write the pattern"
zram_fill_pages "$ZRAM_DEV" 3072 512 random
zram_fill_fio "$ZRAM_DEV" 3584 512
sum=$(zram_read_all "$ZRAM_DEV" "$pages")

echo all >"$ZRAM_SYS/idle"
ktap_check "idle writeback" expect_errno OK "$ZRAM_SYS/writeback" idle
slots=$(zram_block_state_count w)
ktap_info "bd_stat $(bd_stat), $slots slots written back," \
	"$(zram_wb_stat packed_objects) packed in $(zram_wb_stat packed_blocks) blocks"
ktap_eq "every slot but the same-filled ones written back" "$slots" $((pages - 256))
ktap_check "fewer blocks than slots" test "$(bd_count)" -lt $((slots * 3 / 4))
ktap_eq "O_DIRECT reads: same checksum" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
zram_drop_caches
ktap_eq "buffered reads after drop_caches: same checksum" \
	"$(zram_read_buffered "$ZRAM_DEV" "$pages")" "$sum"
ktap_check "fio verify, psync" verify psync
ktap_check "fio verify, buffers 512 bytes into a page" verify psync --iomem_align=512
ktap_check "fio verify, io_uring iodepth 16" verify io_uring --iodepth=16
ktap_eq "nothing failed (io_stat)" "$(zram_field io_stat 1) $(zram_field io_stat 2)" "0 0"
ktap_eq "still every slot on the backing device" "$(zram_block_state_count w)" "$slots"
ktap_finish
