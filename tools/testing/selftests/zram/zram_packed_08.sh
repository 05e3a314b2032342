#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reset and hot_remove of a closed device while a packed writeback runs:
# both succeed once the writeback is done or cut short, the writeback
# returns, nothing stays claimed (the backing device can be claimed again),
# a re-initialized device starts with bd_stat "0 0 0" and keeps
# compressed_writeback (as upstream's reset does), and the kernel logs no
# warning (run_all.sh checks dmesg).

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_require_packed
# 2 ms per backing-device write, one block per bio, one bio in flight
zram_nullb 16 irqmode=2 completion_nsec=2000000 || ktap_skip_all "cannot create null_blk"
tmp=$(mktemp -d /tmp/zram-pk8.XXXXXX)
zram_defer rm -rf "$tmp"

# start_writeback: fresh device with 2048 idle slots (~1000 blocks packed),
# writeback in the background (result in $tmp/wb), waits until it wrote.
start_writeback() {
	local knob=/sys/kernel/debug/zram/zram$ZRAM_ID/wb_max_bio_pages

	echo 1 >"$ZRAM_SYS/compressed_writeback" &&
		echo "$NULLB" >"$ZRAM_SYS/backing_dev" &&
		zram_init 16M &&
		zram_fill_fio "$ZRAM_DEV" 0 2048 &&
		echo all >"$ZRAM_SYS/idle" || return 1
	echo 1 >"$ZRAM_SYS/writeback_batch_size"
	[ -w "$knob" ] && echo 1 >"$knob"
	zram_wb_background 8 "$tmp/wb"
}

ktap_plan 10

start_writeback || ktap_bail "setup failed"
ktap_check "reset during packed writeback succeeds" expect_errno OK "$ZRAM_SYS/reset" 1
wait "$zram_wb_pid"
ktap_info "writeback running at the reset: $zram_wb_running, its result: $(cat "$tmp/wb")"
ktap_eq "initstate 0 after the reset" "$(cat "$ZRAM_SYS/initstate")" 0
ktap_eq "backing_dev none, compressed_writeback kept after the reset" \
	"$(cat "$ZRAM_SYS/backing_dev") $(cat "$ZRAM_SYS/compressed_writeback")" "none 1"
ktap_check "the backing device can be claimed again" \
	expect_errno OK "$ZRAM_SYS/backing_dev" "$NULLB"
zram_init 16M
ktap_eq "bd_stat after re-init" "$(bd_stat)" "0 0 0"
ktap_eq "wb_stat after re-init" \
	"$(zram_wb_stat packed_objects) $(zram_wb_stat packed_blocks)" "0 0"
echo 1 >"$ZRAM_SYS/reset"

start_writeback || ktap_bail "setup failed"
ktap_check "hot_remove during packed writeback succeeds" \
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
