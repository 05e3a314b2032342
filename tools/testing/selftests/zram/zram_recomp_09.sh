#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress uses one priority and needs an algorithm there, as upstream:
# with no secondary algorithm, or priority= naming an empty priority or
# one outside 1..3, it fails with EINVAL and no slot loses its idle mark.
# Slots the highest configured priority already made are not picked
# again and stay idle, and so do slots it could not shrink (marked
# incompressible), so an idle writeback after two recompression passes
# still writes back every idle slot.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_require_nullb
zram_require_writeback
zram_require_block_state
zram_words_file 64 || ktap_skip_all "cannot make the data"
zram_nullb 16 || ktap_skip_all "cannot create null_blk"

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
idle_count() { zram_block_state_count '^...i'; }

ktap_plan 12

echo 1 >"$ZRAM_SYS/reset"
if ! echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm" ||
	! echo 16M >"$ZRAM_SYS/disksize"; then
	ktap_bail "cannot set up the device"
fi
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
ktap_eq "no secondary algorithm: type=idle -> EINVAL" \
	"$(zram_write "$ZRAM_SYS/recompress" type=idle)" EINVAL
ktap_eq "no slot lost its idle mark" "$(idle_count)" 64

zram_recomp_init 16M "$NULLB" || ktap_bail "cannot set up the device"
sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
got=''
for p in 0 2 3 4 5; do
	got+="$p:$(zram_write "$ZRAM_SYS/recompress" "type=idle priority=$p") "
done
ktap_eq "priority= 0, 2, 3, 4, 5 with one secondary algorithm" "$got" \
	"0:EINVAL 2:EINVAL 3:EINVAL 4:EINVAL 5:EINVAL "
ktap_eq "no slot lost its idle mark" "$(idle_count)" 64

ktap_check "first pass: type=idle priority=1" \
	expect_errno OK "$ZRAM_SYS/recompress" "type=idle priority=1"
recomp=$(zram_block_state_count '^....r')
ktap_info "recompressed: $recomp of 64"
ktap_check "some slots were recompressed" [ "$recomp" -gt 0 ]
ktap_eq "the others are incompressible" \
	"$(zram_block_state_count '^.....n')" $((64 - recomp))
echo all >"$ZRAM_SYS/idle"
ktap_check "second pass: type=idle" \
	expect_errno OK "$ZRAM_SYS/recompress" type=idle
ktap_eq "every slot still idle" "$(idle_count)" 64
ktap_check "idle writeback" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "wrote back all 64 slots" "$(bd_writes) $(zram_block_state_count '^.w')" "64 64"
ktap_eq "data read back" "$(zram_read_all "$ZRAM_DEV" 64)" "$sum"
ktap_finish
