#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several parameters in one writeback write (newer ABI, probed; stock 6.12
# skips): "page_index=0 page_index=1" writes back both slots and no other,
# and their data reads back unchanged.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
zram_wb_probe "page_index=0 page_index=1" ||
	ktap_skip_all "several parameters in one write: not supported (stock 6.12)"
zram_fill_pages "$ZRAM_DEV" 0 3 text
sum=$(zram_read_all "$ZRAM_DEV" 3)

both() {
	echo "page_index=0 page_index=1" >"$wb"
	ktap_eq "two page_index parameters in one write: two slots" "$(bd_count)" 2
}
data() { ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" 3)" "$sum"; }

ktap_run_cases both data
