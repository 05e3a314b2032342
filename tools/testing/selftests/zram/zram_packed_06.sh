#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backing-device write errors during packed writeback lose nothing: on a
# device whose writes all fail (dm-flakey error_writes) the writeback
# fails with EIO and leaves every slot in RAM; on one whose last three
# quarters fail, requests fail mid-batch next to requests that succeed: EIO, the
# slots of the failed requests stay in RAM, every block in use is one
# written. Everything reads back intact throughout, and once the device
# works the rest is written back and no block leaked: freeing every slot
# leaves no block in use.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio blkdiscard
zram_require_nullb
zram_require_dm
modprobe dm-flakey >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_require_packed
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
pages=1024
sectors=$((1024 * 8))
part=$((sectors / 4))
good="0 $sectors linear $NULLB 0"
flakey="0 $sectors flakey $NULLB 0 0 1 1 error_writes"
split="0 $part linear $NULLB 0
$part $((sectors - part)) error"

zram_dm fl "$flakey" || ktap_skip_all "cannot create a dm-flakey device"

ktap_plan 12

echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$DM" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_fio "$ZRAM_DEV" 0 $((pages - 128))
zram_fill_pages "$ZRAM_DEV" $((pages - 128)) 128 random
sum=$(zram_read_all "$ZRAM_DEV" "$pages")

echo all >"$ZRAM_SYS/idle"
ktap_check "writeback to a failing device -> EIO" expect_errno EIO "$ZRAM_SYS/writeback" idle
ktap_eq "bd_stat after failed writes" "$(bd_stat)" "0 0 0"
ktap_eq "data intact after failed writes" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"

# the first quarter of the device works: about 500 of the slots fit there
zram_dm_reload "$split" || ktap_bail "cannot load the split table"
echo all >"$ZRAM_SYS/idle"
r=$(zram_write "$ZRAM_SYS/writeback" idle)
slots=$(zram_block_state_count w)
ktap_info "partly failing device: $r, bd_stat $(bd_stat), $slots slots written back"
ktap_eq "writeback to a partly failing device -> EIO" "$r" EIO
ktap_check "some slots written back, more than blocks" \
	test "$slots" -gt "$(bd_count)" -a "$(bd_count)" -gt 0
ktap_check "blocks in use == blocks written, all in the working part" \
	test "$(bd_writes)" = "$(bd_count)" -a "$(bd_count)" -le $((part / 8))
zram_drop_caches
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"

zram_dm_reload "$good" || ktap_bail "cannot load the linear table"
echo all >"$ZRAM_SYS/idle"
ktap_check "writeback once the device works" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "every slot written back" "$(zram_block_state_count w)" "$pages"
zram_drop_caches
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" "$pages")" "$sum"
blkdiscard "$ZRAM_DEV"
ktap_eq "no block in use once every slot is freed" \
	"$(bd_count) $(zram_wb_stat packed_blocks)" "0 0"
echo 1 >"$ZRAM_SYS/reset"
ktap_check "the dm device is released (removable)" dmsetup remove "$DM_NAME"
ktap_finish
