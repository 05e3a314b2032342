#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before init, backing_dev can be replaced: it reads the new path, and
# the device it replaced is released (another zram can claim it).

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
nb1=$NULLB
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
nb2=$NULLB
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
a_sys=$ZRAM_SYS
zram_add || ktap_skip_all "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS

first() {
	ktap_check "a free device is accepted" expect_errno OK "$a_sys/backing_dev" "$nb1"
}
first_reads() { ktap_eq "backing_dev reads the path" "$(cat "$a_sys/backing_dev")" "$nb1"; }
replace() {
	ktap_check "replacing it before init is accepted" \
		expect_errno OK "$a_sys/backing_dev" "$nb2"
}
replace_reads() {
	ktap_eq "backing_dev reads the new path" "$(cat "$a_sys/backing_dev")" "$nb2"
}
released() {
	ktap_check "the replaced device is released (another zram claims it)" \
		expect_errno OK "$b_sys/backing_dev" "$nb1"
}

ktap_run_cases first first_reads replace replace_reads released
