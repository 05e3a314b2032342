#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback_limit enforced with no budget left, as upstream 7.x: a
# writeback that finds no eligible slot succeeds (nothing to write), one
# that selects a slot fails with EIO, and nothing is written;
# writeback_limit still reads 0, which tells a policy daemon that EIO means
# "limit reached".

. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
zram_fill_pages "$ZRAM_DEV" 0 16 text
echo 1 >"$ZRAM_SYS/writeback_limit_enable"
echo 0 >"$ZRAM_SYS/writeback_limit"

ktap_plan 5
# nothing is idle and slot 100 is empty: no slot is eligible
ktap_check "no budget, nothing idle: idle writeback -> OK" \
	expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_check "no budget, empty slot: page_index=100 -> OK" \
	expect_errno OK "$ZRAM_SYS/writeback" page_index=100
echo all >"$ZRAM_SYS/idle"
ktap_check "no budget, 16 idle slots: idle writeback -> EIO" \
	expect_errno EIO "$ZRAM_SYS/writeback" idle
ktap_eq "nothing was written" "$(bd_writes)" 0
ktap_eq "writeback_limit reads 0" "$(cat "$ZRAM_SYS/writeback_limit")" 0
ktap_finish
