#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pages no secondary algorithm can shrink (random data) are marked
# incompressible by recompress type=huge, and "incompressible" writeback
# selects exactly those: bd_count equals their number, only their slots
# are on the backing device, and all data reads back the same.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_require_nullb
zram_require_writeback
zram_require_block_state
zram_hex_file 16 || ktap_skip_all "cannot make the data"
zram_nullb 16 irqmode=2 completion_nsec=100000 ||
	ktap_skip_all "cannot create null_blk"

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
ktap_plan 8

zram_recomp_init 16M "$NULLB" || ktap_bail "cannot set up the device"
# pages 0-15 random, 16-47 text, 48-63 hex
zram_fill_pages "$ZRAM_DEV" 0 16 random
zram_fill_pages "$ZRAM_DEV" 16 32 text
dd if="$HEX_FILE" of="$ZRAM_DEV" bs=4096 seek=48 count=16 oflag=direct \
	conv=notrunc 2>/dev/null
sum=$(zram_read_all "$ZRAM_DEV" 64)

ktap_eq "incompressible writeback before recompression writes nothing" \
	"$(zram_write "$ZRAM_SYS/writeback" incompressible) $(bd_count)" "OK 0"
ktap_check "recompress type=huge" \
	expect_errno OK "$ZRAM_SYS/recompress" type=huge
ktap_eq "the 16 random slots are marked incompressible" \
	"$(zram_block_state_range 0 63 '^.....n') $(zram_block_state_range 0 15 '^.....n')" "16 16"
ktap_eq "the 16 hex slots were recompressed" "$(zram_block_state_range 48 63 '^....r')" 16
ktap_check "incompressible writeback" \
	expect_errno OK "$ZRAM_SYS/writeback" incompressible
ktap_eq "bd_count is the 16 incompressible slots" "$(bd_count)" 16
ktap_eq "and only they are on the backing device" \
	"$(zram_block_state_range 0 63 '^.w') $(zram_block_state_range 0 15 '^.w')" "16 16"
zram_drop_caches
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 64)" "$sum"
ktap_finish
