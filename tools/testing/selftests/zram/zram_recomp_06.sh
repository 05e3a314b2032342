#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress threshold=T: only objects of at least T bytes are looked at
# (the others keep their idle mark), and a new object is kept only when
# it is smaller than T. Hex pages are stored huge by lz4/lzo and coded
# into 2048 to 2600 bytes by zstd/deflate; text pages into a few hundred.
# T=2560: every hex page gets a new object, no text page is looked at.
# T=2048: every hex page is looked at and keeps its huge object.
# At the boundaries, with one text page whose object is S bytes and whose
# recompressed object is N bytes: T=S looks at it and T=S+1 does not; T=N
# does not keep the new object and, the only secondary algorithm being
# the highest, marks the slot incompressible, as upstream; T=N+1 keeps it.

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

ktap_plan 14

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

# one_page [RECOMPRESS_PARAMETER]: a fresh device holding one idle text
# page, recompressed with type=idle and the parameter; prints the object
# sizes before and after and the slot's flags.
one_page() {
	local size

	zram_recomp_init 16M &&
		dd if="$TEXT_FILE" of="$ZRAM_DEV" bs=4096 count=1 oflag=direct \
			2>/dev/null &&
		echo all >"$ZRAM_SYS/idle" || return 1
	size=$(zram_mm_compr)
	echo "type=idle $*" >"$ZRAM_SYS/recompress" || return 1
	echo "$size $(zram_mm_compr) $(zram_slot_state 0 | awk '{ print $3 }')"
}

read -r old new flags <<<"$(one_page)"
ktap_info "one text page: $old bytes, $new bytes recompressed ($flags)"
if [ "$flags" != "....r." ] || [ "$new" -ge "$old" ]; then
	ktap_skip_n 4 "threshold boundaries" "the text page is not recompressed smaller"
else
	ktap_eq "threshold=$old: the $old-byte object is looked at" \
		"$(one_page threshold="$old" | awk '{ print $3 }')" "....r."
	ktap_eq "threshold=$((old + 1)): it is not" \
		"$(one_page threshold=$((old + 1)) | awk '{ print $3 }')" "...i.."
	ktap_eq "threshold=$new: the $new-byte object is not kept, incompressible" \
		"$(one_page threshold="$new")" "$old $old .....n"
	ktap_eq "threshold=$((new + 1)): it is kept" \
		"$(one_page threshold=$((new + 1)))" "$old $new ....r."
fi
ktap_finish
