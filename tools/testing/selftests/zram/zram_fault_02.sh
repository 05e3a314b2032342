#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A full backing device: writeback fails with ENOSPC after filling it, all
# data stays readable, and space freed by discard is used again.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_require_cmd blkdiscard
# 1 MiB: 256 blocks
zram_nullb 1 || ktap_skip_all "cannot create null_blk"
pages=512

ktap_plan 7

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 $pages random
sum=$(zram_read_all "$ZRAM_DEV")
echo all >"$ZRAM_SYS/idle"
ktap_check "writeback to a full device -> ENOSPC" \
	expect_errno ENOSPC "$ZRAM_SYS/writeback" idle
count=$(bd_count)
ktap_info "blocks used: $count of 256"
ktap_check "the device is full (255 or 256 blocks used)" \
	test "$count" -ge 255 -a "$count" -le 256
ktap_eq "count == writes" "$(bd_writes)" "$count"
zram_drop_caches
ktap_eq "all data readable" "$(zram_read_all "$ZRAM_DEV")" "$sum"

# the first 384 slots hold every used block: discarding them frees all
blkdiscard -o 0 -l $((384 * 4096)) "$ZRAM_DEV"
head=$(bd_count)
echo all >"$ZRAM_SYS/idle"
r=$(zram_write "$ZRAM_SYS/writeback" idle)
ktap_info "after discarding 384 slots: count $head, writeback $r, count $(bd_count)"
ktap_check "freed blocks are used again" test "$(bd_count)" -gt "$head"
ktap_eq "the remaining 128 slots all fit now" "$(bd_count)" 128
ktap_eq "writeback succeeded" "$r" OK

ktap_finish
