#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A device open through a file descriptor can be neither reset nor
# hot_removed: both fail with EBUSY, and its data and disksize stay.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 64 text
sum=$(zram_read_all "$ZRAM_DEV")
exec 3<"$ZRAM_DEV"

try_reset() {
	ktap_check "reset with an open descriptor -> EBUSY" \
		expect_errno EBUSY "$ZRAM_SYS/reset" 1
}
reset_data() {
	ktap_eq "data intact after the refused reset" "$(zram_read_all "$ZRAM_DEV")" "$sum"
}
reset_size() {
	ktap_eq "disksize unchanged" "$(cat "$ZRAM_SYS/disksize")" $((16 << 20))
}
try_remove() {
	ktap_check "hot_remove with an open descriptor -> EBUSY" \
		expect_errno EBUSY "$ZRAM_CONTROL/hot_remove" "$ZRAM_ID"
}
remove_data() {
	ktap_eq "data intact after the refused hot_remove" \
		"$(zram_read_all "$ZRAM_DEV")" "$sum"
}

ktap_run_cases try_reset reset_data reset_size try_remove remove_data
