#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each writeback mode writes back exactly the slots it selects and its
# write returns the full length: huge (the incompressible slots),
# incompressible (nothing without recompression), huge_idle (huge slots
# marked idle only), idle (the idle slots, never same-filled ones, up to
# the device's last slot); the data reads back unchanged.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
wb=$ZRAM_SYS/writeback
# 0-31 huge, 32-63 compressible, 64-71 same-filled
sum=$(zram_wb_fill_kinds) || ktap_bail "cannot write the slots"

huge_len() { ktap_check "huge returns its full length" zram_write_full "$wb" huge; }
huge_count() { ktap_eq "huge wrote back the 32 huge slots" "$(bd_count)" 32; }
incomp_len() {
	ktap_check "incompressible returns its full length" \
		zram_write_full "$wb" incompressible
}
incomp_count() {
	ktap_eq "incompressible: no slot is incompressible without recompression" \
		"$(bd_count)" 32
}
# 72-79: huge slots not marked idle
huge_idle_len() {
	zram_fill_pages "$ZRAM_DEV" 72 8 random
	sum=$(zram_read_all "$ZRAM_DEV" 80)
	ktap_check "huge_idle returns its full length" zram_write_full "$wb" huge_idle
}
huge_idle_skips() {
	ktap_eq "huge_idle skips huge slots not marked idle" "$(bd_count)" 32
}
huge_idle_count() {
	echo all >"$ZRAM_SYS/idle"
	echo huge_idle >"$wb"
	ktap_eq "huge_idle writes back the 8 idle huge slots" "$(bd_count)" 40
}
idle_len() { ktap_check "idle returns its full length" zram_write_full "$wb" idle; }
idle_count() {
	ktap_eq "idle wrote back the 32 idle compressible slots, no same-filled one" \
		"$(bd_count)" 72
}
last=$((16 * 256 - 1))
idle_last() {
	zram_fill_pages "$ZRAM_DEV" "$last" 1 text
	last_sum=$(zram_page_sum "$last")
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$wb"
	ktap_eq "idle reaches the last slot ($last)" "$(bd_count)" 73
}
data() {
	ktap_eq "data intact after the writebacks" \
		"$(zram_read_all "$ZRAM_DEV" 80) $(zram_page_sum "$last")" \
		"$sum $last_sum"
}

ktap_run_cases huge_len huge_count incomp_len incomp_count huge_idle_len \
	huge_idle_skips huge_idle_count idle_len idle_count idle_last data
