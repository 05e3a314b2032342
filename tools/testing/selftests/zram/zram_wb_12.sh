#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback page_index=N writes back exactly slot N when it is stored in
# RAM (and returns its full length); for a slot already written back, a
# same-filled slot or an empty slot it succeeds and writes nothing. The
# slot's data reads back unchanged.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
# 0-31 huge, 32-63 compressible, 64-71 same-filled
zram_wb_fill_kinds >/dev/null || ktap_bail "cannot write the slots"
sum=$(zram_page_sum 40)

one_len() {
	ktap_check "page_index=40 returns its full length" \
		zram_write_full "$wb" page_index=40
}
one_count() { ktap_eq "page_index=40 wrote back one slot" "$(bd_count)" 1; }
again() {
	ktap_check "page_index of a written-back slot succeeds" \
		expect_errno OK "$wb" page_index=40
}
same() {
	ktap_check "page_index of a same-filled slot succeeds" \
		expect_errno OK "$wb" page_index=70
}
empty() {
	ktap_check "page_index of an empty slot succeeds" \
		expect_errno OK "$wb" page_index=100
}
nothing() { ktap_eq "none of them wrote anything" "$(bd_stat)" "1 0 1"; }
data() { ktap_eq "slot 40 reads back its data" "$(zram_page_sum 40)" "$sum"; }

ktap_run_cases one_len one_count again same empty nothing data
