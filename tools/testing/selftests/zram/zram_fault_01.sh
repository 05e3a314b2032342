#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backing-device write errors: writeback reports an error (EIO), no data
# is lost, bd_stat count equals what is really on the device, and no block
# leaks: once the device works again, all slots fit on a backing device
# exactly one block larger than the data (block 0 is never used). With
# writeback_limit on, only the blocks really written are charged: a write
# that failed leaves the budget as it was.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_dm
modprobe dm-flakey >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
pages=128
sectors=$(((pages + 1) * 8))
half=$((pages * 8 / 2))
good="0 $sectors linear $NULLB 0"
# every write fails, reads work
flakey="0 $sectors flakey $NULLB 0 0 1 1 error_writes"
# first half works, second half fails every I/O
split="0 $half linear $NULLB 0
$half $((sectors - half)) error"

zram_dm fl "$flakey" || ktap_skip_all "cannot create a dm-flakey device"

ktap_plan 17

echo "$DM" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 $((pages / 2)) random
zram_fill_pages "$ZRAM_DEV" $((pages / 2)) $((pages / 2)) text
sum=$(zram_read_all "$ZRAM_DEV")
limit=1000
if ! echo 1 >"$ZRAM_SYS/writeback_limit_enable" ||
	! echo "$limit" >"$ZRAM_SYS/writeback_limit"; then
	ktap_bail "cannot set writeback_limit"
fi

echo all >"$ZRAM_SYS/idle"
ktap_check "writeback to a failing device -> EIO" expect_errno EIO "$ZRAM_SYS/writeback" idle
ktap_eq "bd_stat after failed writes" "$(bd_stat)" "0 0 0"
ktap_eq "writeback_limit unchanged by failed writes" \
	"$(cat "$ZRAM_SYS/writeback_limit")" "$limit"
ktap_eq "data intact after failed writes" "$(zram_read_all "$ZRAM_DEV")" "$sum"

zram_dm_reload "$split" || ktap_bail "cannot load the split table"
echo all >"$ZRAM_SYS/idle"
r=$(zram_write "$ZRAM_SYS/writeback" idle)
count=$(bd_count)
ktap_info "half-failing device: $r, count $count"
ktap_eq "writeback to a half-failing device -> EIO" "$r" EIO
ktap_check "some slots written, none beyond the working half" \
	test "$count" -gt 0 -a "$count" -le $((pages / 2))
ktap_eq "count == writes" "$(bd_writes)" "$count"
ktap_eq "writeback_limit charged for the blocks written only" \
	"$(cat "$ZRAM_SYS/writeback_limit")" $((limit - $(bd_writes)))
zram_drop_caches
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV")" "$sum"
ktap_eq "every written-back slot was read from the device" "$(bd_reads)" "$count"

zram_dm_reload "$good" || ktap_bail "cannot load the linear table"
echo all >"$ZRAM_SYS/idle"
# Stock 6.12 reserves a block before it looks at each slot, so a writeback
# that fills the device exactly ends with ENOSPC although every slot fit.
r=$(zram_write "$ZRAM_SYS/writeback" idle)
case $r in
OK | ENOSPC) ktap_ok "writeback once the device works ($r)" ;;
*) ktap_not_ok "writeback once the device works ($r)" ;;
esac
ktap_eq "all $pages slots on a $((pages + 1))-block device: no leaked block" \
	"$(bd_count)" "$pages"
ktap_eq "writeback_limit charged for every block written, once" \
	"$(cat "$ZRAM_SYS/writeback_limit")" $((limit - $(bd_writes)))
zram_drop_caches
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV")" "$sum"

zram_dm_reload "$flakey" || ktap_bail "cannot load the flakey table"
zram_fill_pages "$ZRAM_DEV" 0 8 text
ktap_eq "overwrites free blocks while the device fails" "$(bd_count)" $((pages - 8))
echo 1 >"$ZRAM_SYS/reset"
echo "$DM" >"$ZRAM_SYS/backing_dev"
zram_init 16M
ktap_eq "bd_stat after reset and re-init" "$(bd_stat)" "0 0 0"
echo 1 >"$ZRAM_SYS/reset"
ktap_check "the dm device is released (removable)" dmsetup remove "$DM_NAME"

ktap_finish
