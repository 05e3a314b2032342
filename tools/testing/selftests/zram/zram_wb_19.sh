#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The same slot twice in one writeback write ("page_index=0 page_index=0",
# newer ABI, probed): the second parameter waits for the first one's bio
# and then skips the written-back slot, so one block is used and written
# once; the slot reads back unchanged (on stock 6.12 too, which refuses
# the write).

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
zram_fill_pages "$ZRAM_DEV" 0 1 text
sum=$(zram_page_sum 0)

twice() {
	if [ "$(zram_write "$wb" "page_index=0 page_index=0")" = EINVAL ]; then
		ktap_skip "the same page_index twice" "not supported (stock 6.12)"
	else
		ktap_eq "the same page_index twice: one block, one write" \
			"$(bd_count) $(bd_writes)" "1 1"
	fi
}
data() { ktap_eq "slot 0 intact" "$(zram_page_sum 0)" "$sum"; }

ktap_run_cases twice data
