#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Overwriting written-back slots frees their blocks on the backing device
# (bd_stat count drops by one per slot) and the slots read the new data.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
zram_fill_pages "$ZRAM_DEV" 0 32 random || ktap_bail "cannot write the slots"
echo huge >"$ZRAM_SYS/writeback"

new=$(mktemp /tmp/zram-wb13.XXXXXX)
zram_defer rm -f "$new"
head -c $((8 * 4096)) /dev/urandom >"$new"

setup() { ktap_eq "setup: 32 slots written back" "$(bd_count)" 32; }
overwrite() {
	dd if="$new" of="$ZRAM_DEV" bs=4096 count=8 oflag=direct conv=notrunc \
		2>/dev/null
	ktap_eq "overwriting 8 written-back slots frees their blocks" "$(bd_count)" 24
}
data() {
	ktap_eq "the overwritten slots read the new data" \
		"$(zram_read_all "$ZRAM_DEV" 8)" "$(sha256sum <"$new" | cut -d' ' -f1)"
}

ktap_run_cases setup overwrite data
