#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bd_stat end to end: "0 0 0" before; idle writeback of N eligible slots
# (same-filled slots are never eligible) gives count == writes == N;
# reading them back counts N reads; discard and overwrite of written-back
# slots release their blocks; orig_data_size keeps counting written-back
# pages while compr_data_size drops to 0; reset clears everything.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_require_cmd blkdiscard
zram_nullb 32 || ktap_skip_all "cannot create null_blk"

ktap_plan 16

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
ktap_eq "bd_stat before init" "$(bd_stat)" "0 0 0"
zram_init 32M || ktap_bail "cannot set disksize"
ktap_eq "bd_stat after init" "$(bd_stat)" "0 0 0"

# 0-127 incompressible, 128-255 compressible, 256-287 same-filled
zram_fill_pages "$ZRAM_DEV" 0 128 random
zram_fill_pages "$ZRAM_DEV" 128 128 text
zram_fill_pages "$ZRAM_DEV" 256 32 zero
sum=$(zram_read_all "$ZRAM_DEV")
orig=$(zram_field mm_stat 1)
ktap_eq "orig_data_size counts all 288 pages" "$orig" $((288 * 4096))

echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
ktap_eq "bd_stat after idle writeback: count reads writes" \
	"$(bd_stat)" "256 0 256"
ktap_eq "orig_data_size unchanged by writeback" "$(zram_field mm_stat 1)" "$orig"
ktap_eq "compr_data_size 0 once every stored slot is written back" \
	"$(zram_field mm_stat 2)" 0
ktap_eq "same_pages unchanged (32)" "$(zram_field mm_stat 6)" 32

echo idle >"$ZRAM_SYS/writeback"
ktap_eq "a second idle writeback writes nothing" "$(bd_writes)" 256

zram_drop_caches
ktap_eq "data read back intact" "$(zram_read_all "$ZRAM_DEV")" "$sum"
ktap_eq "bd_stat reads counts the 256 pages read from the device" "$(bd_reads)" 256

blkdiscard -o 0 -l $((64 * 4096)) "$ZRAM_DEV"
ktap_eq "discard of 64 written-back slots: count 192" "$(bd_count)" 192
ktap_eq "orig_data_size drops by the discarded pages" "$(zram_field mm_stat 1)" \
	$((orig - 64 * 4096))
zram_fill_pages "$ZRAM_DEV" 128 32 random
ktap_eq "overwrite of 32 written-back slots: count 160" "$(bd_count)" 160
ktap_eq "writes counter unchanged by discard/overwrite" "$(bd_writes)" 256

echo 1 >"$ZRAM_SYS/reset"
ktap_eq "bd_stat after reset" "$(bd_stat)" "0 0 0"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 32M
ktap_eq "bd_stat after re-init on the same device" "$(bd_stat)" "0 0 0"

ktap_finish
