#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress threshold=T: only objects of at least T bytes are looked at
# (the others keep their idle mark), and a new object is kept only when
# it is smaller than T. Hex pages are stored huge by lz4/lzo and coded
# into 2048 to 2600 bytes by zstd/deflate; text pages into a few hundred.
# T=2560: every hex page gets a new object, no text page is looked at.
# T=2048: every hex page is looked at and keeps its huge object.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_hex_file 32 || ktap_skip_all "cannot make the data"
zram_text_file 32 || ktap_skip_all "cannot make the data"
zram_require_block_state
cat "$HEX_FILE" "$TEXT_FILE" >"$HEX_FILE.all"
zram_defer rm -f "$HEX_FILE.all"
sum=$(sha256sum <"$HEX_FILE.all" | cut -d' ' -f1)

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
# setup: pages 0-31 hex, 32-63 text, all idle
setup() {
	zram_recomp_init 16M &&
		zram_quiet zram_store_file "$HEX_FILE.all" &&
		echo all >"$ZRAM_SYS/idle"
}

ktap_plan 10

setup || ktap_bail "cannot set up the device"
ktap_check "threshold=2560 accepted" \
	expect_errno OK "$ZRAM_SYS/recompress" "type=idle threshold=2560"
ktap_eq "every hex slot recompressed" "$(zram_block_state_range 0 31 '^....r')" 32
ktap_eq "huge_pages 0" "$(zram_mm_huge)" 0
ktap_eq "no text slot looked at: all still idle" "$(zram_block_state_range 32 63 '^...i')" 32
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 64)" "$sum"

setup || ktap_bail "cannot set up the device"
ktap_check "threshold=2048 accepted" \
	expect_errno OK "$ZRAM_SYS/recompress" "type=idle threshold=2048"
ktap_eq "no hex slot recompressed" "$(zram_block_state_range 0 31 '^....r')" 0
ktap_eq "every hex slot looked at: none idle" "$(zram_block_state_range 0 31 '^...i')" 0
ktap_eq "still 32 huge pages" "$(zram_mm_huge)" 32
ktap_eq "no text slot looked at: all still idle" "$(zram_block_state_range 32 63 '^...i')" 32
ktap_finish
