#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reset of a closed device succeeds and returns it to the uninitialized
# state: initstate 0, disksize 0, the block device's size 0 (a read
# returns nothing), and its data is gone (initialized again, it reads
# zeros).

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 64 text

try_reset() {
	ktap_check "reset once closed succeeds" expect_errno OK "$ZRAM_SYS/reset" 1
}
init_zero() { ktap_eq "initstate 0 after reset" "$(cat "$ZRAM_SYS/initstate")" 0; }
size_zero() { ktap_eq "disksize 0 after reset" "$(cat "$ZRAM_SYS/disksize")" 0; }
bdev_empty() {
	ktap_eq "the block device's size 0 after reset, a read returns nothing" \
		"$(cat "/sys/block/zram$ZRAM_ID/size") $(dd if="$ZRAM_DEV" bs=4096 \
			count=1 iflag=direct 2>/dev/null | wc -c)" "0 0"
}
data_gone() {
	zram_init 16M || ktap_bail "cannot set disksize again"
	ktap_eq "initialized again, the device reads zeros" \
		"$(zram_read_all "$ZRAM_DEV" 64)" \
		"$(head -c $((64 * 4096)) /dev/zero | sha256sum | cut -d' ' -f1)"
}

ktap_run_cases try_reset init_zero size_zero bdev_empty data_gone
