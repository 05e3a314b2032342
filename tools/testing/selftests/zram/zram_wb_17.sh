#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback type=MODE (newer ABI, probed; stock 6.12 skips) is the mode
# MODE: type=idle writes back the idle slots, returns its full length, and
# the data reads back unchanged.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
zram_wb_probe type=huge || ktap_skip_all "no type= support (stock 6.12)"
zram_fill_pages "$ZRAM_DEV" 0 10 text
sum=$(zram_read_all "$ZRAM_DEV" 16)
echo all >"$ZRAM_SYS/idle"

type_len() {
	ktap_check "type=idle returns its full length" zram_write_full "$wb" type=idle
}
type_count() { ktap_eq "type=idle wrote back the 10 idle slots" "$(bd_count)" 10; }
data() { ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" 16)" "$sum"; }

ktap_run_cases type_len type_count data
