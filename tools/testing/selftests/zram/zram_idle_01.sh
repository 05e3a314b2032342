#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# idle marking, seen through debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING):
# "all" marks every stored slot that is not same-filled; a read (also one
# from a buffer that splits the page over two bio_vecs) or a write clears
# the mark; an age in seconds marks only slots not accessed for that
# long (and clears the mark of the others), counted in whole seconds as
# upstream; an age no slot can have (at or beyond the uptime) changes
# nothing.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
[ -r "$(zram_block_state_file)" ] ||
	ktap_skip_all "no debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING)"

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
idle_count() { zram_block_state_count '^...i'; }
# slot_flags INDEX: the flags column of one slot
slot_flags() {
	awk -v i="$1" '$1 == i { print $3 }' "$(zram_block_state_file)"
}

ktap_plan 12

# 0-31 compressible, 32-39 same-filled, 40-55 incompressible
zram_fill_pages "$ZRAM_DEV" 0 32 text
zram_fill_pages "$ZRAM_DEV" 32 8 zero
zram_fill_pages "$ZRAM_DEV" 40 16 random

ktap_eq "no slot idle after writing" "$(idle_count)" 0
echo all >"$ZRAM_SYS/idle"
ktap_eq "idle all marks the 48 slots that are not same-filled" "$(idle_count)" 48
ktap_eq "same-filled slots are not marked" "$(zram_block_state_count '^s..i')" 0
dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip=5 count=1 iflag=direct 2>/dev/null
ktap_eq "a read clears the mark" "$(slot_flags 5)" "......"
zram_fill_pages "$ZRAM_DEV" 6 1 text
ktap_eq "a write clears the mark" "$(slot_flags 6)" "......"
fio --name=partial --filename="$ZRAM_DEV" --ioengine=psync --direct=1 \
	--rw=read --bs=4k --size=4k --offset=$((7 * 4096)) --iomem_align=512 \
	--output=/dev/null >/dev/null 2>&1
ktap_eq "a read in two partial bio_vecs clears the mark" "$(slot_flags 7)" "......"
ktap_eq "45 slots still idle" "$(idle_count)" 45

sleep 3
zram_fill_pages "$ZRAM_DEV" 40 4 random
echo 2 >"$ZRAM_SYS/idle"
ktap_eq "idle 2: slots older than 2 s are marked (44)" "$(idle_count)" 44
ktap_eq "idle 2: fresh slots are not" "$(awk '$1 >= 40 && $1 <= 43 && $3 ~ /^...i/' \
	"$(zram_block_state_file)" | wc -l)" 0
echo 100000 >"$ZRAM_SYS/idle"
ktap_eq "idle 100000: no slot is that old, the marks stay" "$(idle_count)" 44

sleep 1
ktap_check "idle 0 is accepted" expect_errno OK "$ZRAM_SYS/idle" 0
ktap_eq "idle 0 marks every slot not accessed this second (48)" "$(idle_count)" 48

ktap_finish
