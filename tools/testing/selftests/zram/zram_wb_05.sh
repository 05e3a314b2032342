#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reset and hot_remove of a closed device while a writeback runs: both
# succeed once the writeback is done (or cut short), the writeback returns,
# nothing stays claimed (the backing device can be claimed again) and a
# re-initialized device starts with bd_stat "0 0 0".

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
# 2 ms per backing-device write, so the writeback is still running
zram_nullb 16 irqmode=2 completion_nsec=2000000 || ktap_skip_all "cannot create null_blk"
tmp=$(mktemp -d /tmp/zram-wb5.XXXXXX)
zram_defer rm -rf "$tmp"

# start_writeback: fresh device with 512 idle slots, writeback in the
# background (result in $tmp/wb), waits until it has written something.
start_writeback() {
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" &&
		zram_init 16M &&
		zram_fill_pages "$ZRAM_DEV" 0 512 text &&
		echo all >"$ZRAM_SYS/idle" || return 1
	zram_attr_exists writeback_batch_size && echo 1 >"$ZRAM_SYS/writeback_batch_size"
	zram_wb_background 4 "$tmp/wb"
}

ktap_plan 9

start_writeback || ktap_bail "setup failed"
ktap_check "reset during writeback succeeds" expect_errno OK "$ZRAM_SYS/reset" 1
wait "$zram_wb_pid"
ktap_info "writeback running at the reset: $zram_wb_running, its result: $(cat "$tmp/wb")"
ktap_eq "initstate 0 after the reset" "$(cat "$ZRAM_SYS/initstate")" 0
ktap_eq "backing_dev none after the reset" "$(cat "$ZRAM_SYS/backing_dev")" none
ktap_check "the backing device can be claimed again" \
	expect_errno OK "$ZRAM_SYS/backing_dev" "$NULLB"
zram_init 16M
ktap_eq "bd_stat after re-init" "$(bd_stat)" "0 0 0"
echo 1 >"$ZRAM_SYS/reset"

start_writeback || ktap_bail "setup failed"
ktap_check "hot_remove during writeback succeeds" \
	expect_errno OK "$ZRAM_CONTROL/hot_remove" "$ZRAM_ID"
wait "$zram_wb_pid"
ktap_info "writeback running at the hot_remove: $zram_wb_running, its result: $(cat "$tmp/wb")"
ktap_check "the device is gone" test ! -e "$ZRAM_SYS"
zram_add || ktap_bail "cannot hot_add"
ktap_check "the backing device can be claimed by a new device" \
	expect_errno OK "$ZRAM_SYS/backing_dev" "$NULLB"
zram_init 16M
ktap_eq "bd_stat of the new device" "$(bd_stat)" "0 0 0"

ktap_finish
