#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A full backing device during packed writeback: the writeback fails with
# ENOSPC once every block is in use, packed with more slots than blocks;
# all data stays readable; space freed by discards is used again.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio blkdiscard
zram_wb_device
zram_require_packed
# 1 MiB: 256 blocks, block 0 unused; 2048 slots of ~2 KiB need ~1040
zram_nullb 1 || ktap_skip_all "cannot create null_blk"
pages=2048

ktap_plan 7

echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_fio "$ZRAM_DEV" 0 "$pages"
sum=$(zram_read_all "$ZRAM_DEV" "$pages")
echo all >"$ZRAM_SYS/idle"
ktap_check "writeback to a full device -> ENOSPC" \
	expect_errno ENOSPC "$ZRAM_SYS/writeback" idle
slots=$(zram_block_state_count w)
ktap_info "bd_stat $(bd_stat), $slots slots written back"
ktap_eq "every block in use" "$(bd_count)" 255
ktap_check "more slots than blocks" test "$slots" -gt 400
zram_drop_caches
ktap_eq "all data readable" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"

# slots are packed in order: the first 1024 hold every block in use
rest() {
	zram_page_sum 1024 1024
}
sum=$(rest)
blkdiscard -o 0 -l $((1024 * 4096)) "$ZRAM_DEV"
ktap_eq "discarding them frees every block" "$(bd_count)" 0
echo all >"$ZRAM_SYS/idle"
r=$(zram_write "$ZRAM_SYS/writeback" idle)
ktap_info "after the discard: $r, bd_stat $(bd_stat)"
ktap_eq "the freed blocks are used again, up to a full device" "$r $(bd_count)" "ENOSPC 255"
zram_drop_caches
ktap_eq "the other 1024 slots read back intact" "$(rest)" "$sum"
ktap_finish
