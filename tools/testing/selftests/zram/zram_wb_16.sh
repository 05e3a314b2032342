#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback page_indexes=A-B (newer ABI, probed; stock 6.12 skips) writes
# back slots A to B, both included and no other, returns its full length,
# and the data reads back unchanged; A-A is the one slot A.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
zram_wb_probe page_indexes=1-1 ||
	ktap_skip_all "no page_indexes support (stock 6.12)"
zram_fill_pages "$ZRAM_DEV" 100 10 text
sum=$(zram_read_all "$ZRAM_DEV" 120)

range_len() {
	ktap_check "page_indexes=101-104 returns its full length" \
		zram_write_full "$wb" page_indexes=101-104
}
range_count() {
	ktap_eq "page_indexes=101-104 wrote back 4 slots (inclusive)" "$(bd_count)" 4
}
# slots 100 and 105 were left in RAM: each can still be written back
bounds() {
	echo page_index=100 >"$wb"
	echo page_index=105 >"$wb"
	ktap_eq "slots 100 and 105, outside the range, were not written back" \
		"$(bd_count)" 6
}
one_slot() {
	ktap_eq "page_indexes=107-107 -> OK, wrote back slot 107 alone" \
		"$(zram_write "$wb" page_indexes=107-107) $(bd_count)" "OK 7"
}
data() { ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" 120)" "$sum"; }

ktap_run_cases range_len range_count bounds one_slot data
