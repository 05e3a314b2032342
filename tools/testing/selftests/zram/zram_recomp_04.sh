#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress type=huge: pages the primary algorithm (lz4, lzo) stored
# whole, but that an entropy coder (zstd, deflate) halves, get compressed
# objects: huge_pages falls to 0, compr_data_size falls by at least a
# quarter of their size, the compressible slots are left alone, and the
# data reads back the same.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_hex_file 32 || ktap_skip_all "cannot make the data"
zram_text_file 32 || ktap_skip_all "cannot make the data"
zram_recomp_init 16M || ktap_skip_all "cannot set up the device"

ktap_plan 5

# pages 0-31 hex (huge), 32-63 text (compressible)
cat "$HEX_FILE" "$TEXT_FILE" >"$HEX_FILE.all"
zram_defer rm -f "$HEX_FILE.all"
sum=$(sha256sum <"$HEX_FILE.all" | cut -d' ' -f1)
zram_quiet zram_store_file "$HEX_FILE.all" || ktap_bail "cannot store the data"
huge0=$(zram_mm_huge)
compr0=$(zram_mm_compr)
ktap_eq "$RECOMP_PRIMARY stores the 32 hex pages huge" "$huge0" 32

ktap_check "recompress type=huge" \
	expect_errno OK "$ZRAM_SYS/recompress" type=huge
compr1=$(zram_mm_compr)
ktap_info "$RECOMP_PRIMARY -> $RECOMP_SECONDARY: huge_pages $huge0 ->" \
	"$(zram_mm_huge), compr_data_size $compr0 -> $compr1"
ktap_eq "huge_pages 0" "$(zram_mm_huge)" 0
ktap_check "compr_data_size fell by at least 32 KiB" \
	[ $((compr0 - compr1)) -ge $((32 * 1024)) ]
zram_drop_caches
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 64)" "$sum"
ktap_finish
