#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress type=idle: the idle slots get smaller objects from the
# secondary algorithm (compr_data_size falls, pages_stored stays), the
# slots written after the idle marking are left alone, and every byte
# reads back the same, before and after drop_caches. With debugfs
# block_state, as upstream: a recompressed slot starts afresh (access
# time 0), and a second type=idle pass, which has no higher algorithm
# to try on them, leaves the recompressed slots alone: they stay idle.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_words_file 128 || ktap_skip_all "cannot make the data"
zram_recomp_init 16M || ktap_skip_all "cannot set up the device"
state=$(zram_block_state_file)

ktap_plan 8

sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
# pages 96-127 again: not idle any more
dd if="$WORDS_FILE" of="$ZRAM_DEV" bs=4096 skip=96 seek=96 count=32 \
	oflag=direct conv=notrunc 2>/dev/null
compr0=$(zram_mm_compr)
stored0=$(zram_field mm_stat 1)

ktap_check "recompress type=idle" \
	expect_errno OK "$ZRAM_SYS/recompress" type=idle
compr1=$(zram_mm_compr)
ktap_info "$RECOMP_PRIMARY -> $RECOMP_SECONDARY: compr_data_size $compr0 -> $compr1"
ktap_check "compr_data_size fell" [ "$compr1" -lt "$compr0" ]
ktap_eq "orig_data_size unchanged" "$(zram_field mm_stat 1)" "$stored0"
if [ -r "$state" ]; then
	ktap_eq "no slot written after the marking was recompressed" \
		"$(awk '$1 >= 96 && $3 ~ /^....r/' "$state" | wc -l)" 0
	ktap_eq "recompressed slots have access time 0" \
		"$(awk '$3 ~ /^....r/ && $2 != "0.000000"' "$state" | wc -l)" 0
	echo all >"$ZRAM_SYS/idle"
	idle_r=$(zram_block_state_count '^...ir')
	echo type=idle >"$ZRAM_SYS/recompress"
	ktap_eq "a second pass leaves the recompressed slots idle" \
		"$(zram_block_state_count '^...ir') of $idle_r" "$idle_r of $idle_r"
	ktap_info "recompressed idle slots: $idle_r"
else
	ktap_skip_n 3 "block_state rows" "no debugfs block_state"
fi
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 128)" "$sum"
zram_drop_caches
ktap_eq "data read back after drop_caches" "$(zram_read_all "$ZRAM_DEV" 128)" "$sum"
ktap_finish
