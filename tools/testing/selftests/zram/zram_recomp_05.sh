#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress max_pages=N tries exactly N qualifying slots (a tried slot
# loses its idle mark, whether it got a smaller object or not);
# max_pages=0 tries none; without max_pages the rest are tried. Ours
# tries them in index order (upstream: largest objects first).

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_words_file 64 || ktap_skip_all "cannot make the data"
zram_recomp_init 16M || ktap_skip_all "cannot set up the device"
zram_require_block_state

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
idle_count() { zram_block_state_count '^...i'; }
# first_idle: index of the first idle slot
first_idle() {
	awk '$3 ~ /^...i/ { print $1; exit }' "$(zram_block_state_file)"
}

ktap_plan 8

sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
ktap_eq "64 idle slots" "$(idle_count)" 64

ktap_check "max_pages=0 accepted" \
	expect_errno OK "$ZRAM_SYS/recompress" "type=idle max_pages=0"
ktap_eq "and tries none" "$(idle_count)" 64
ktap_check "max_pages=10 accepted" \
	expect_errno OK "$ZRAM_SYS/recompress" "type=idle max_pages=10"
ktap_eq "tries exactly 10" "$(idle_count)" 54
ktap_eq "the first 10" "$(first_idle)" 10
expect_errno OK "$ZRAM_SYS/recompress" type=idle
ktap_eq "without max_pages: the other 54" "$(idle_count)" 0
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 64)" "$sum"
ktap_finish
