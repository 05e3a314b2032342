#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# After init backing_dev cannot be changed: a new device and "none" both
# fail with EBUSY, backing_dev reads the device set before, and the
# refused device was not claimed.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
in_use=$NULLB
a_sys=$ZRAM_SYS
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
other=$NULLB
zram_add || ktap_skip_all "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS

new_dev() {
	ktap_check "backing_dev after init -> EBUSY" \
		expect_errno EBUSY "$a_sys/backing_dev" "$other"
}
unchanged() {
	ktap_eq "backing_dev unchanged after EBUSY" "$(cat "$a_sys/backing_dev")" "$in_use"
}
none() {
	ktap_check "backing_dev 'none' after init -> EBUSY" \
		expect_errno EBUSY "$a_sys/backing_dev" none
}
not_claimed() {
	ktap_eq "the refused device is still free (another zram claims it)" \
		"$(zram_write "$b_sys/backing_dev" "$other")" OK
}

ktap_run_cases new_dev unchanged none not_claimed
