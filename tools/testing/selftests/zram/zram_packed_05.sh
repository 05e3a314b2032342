#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback_limit counts blocks written, also when they carry packed
# objects: with the limit enabled and set to L, an idle writeback of the
# benchmark's 50% compressible data writes exactly L blocks, holding more
# than L slots once L > 1; the limit reads 0 and the next writeback fails
# with EIO; raising the limit by 2 writes 2 more blocks; disabling it
# writes the rest, and everything reads back intact.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_require_packed
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
pages=256

# one_limit L: prints a problem and fails, if any
# shellcheck disable=SC2317 # called through ktap_check
one_limit() {
	local l=$1 r sum objs

	echo 1 >"$ZRAM_SYS/reset"
	echo 1 >"$ZRAM_SYS/compressed_writeback"
	echo "$NULLB" >"$ZRAM_SYS/backing_dev"
	if ! { zram_init 16M && zram_fill_fio "$ZRAM_DEV" 0 "$pages"; }; then
		echo "# setup failed"
		return 1
	fi
	sum=$(zram_read_all "$ZRAM_DEV" "$pages")
	echo all >"$ZRAM_SYS/idle"
	echo 1 >"$ZRAM_SYS/writeback_limit_enable"
	echo "$l" >"$ZRAM_SYS/writeback_limit"
	r=$(zram_write "$ZRAM_SYS/writeback" idle)
	[ "$r" = OK ] || [ "$r" = EIO ] || { echo "# first writeback: $r"; return 1; }
	objs=$(zram_wb_stat packed_objects)
	echo "# limit $l: $r, bd_stat $(bd_stat), $objs packed objects"
	[ "$(bd_writes)" = "$l" ] || { echo "# wrote $(bd_writes) blocks"; return 1; }
	[ "$l" = 1 ] || [ "$objs" -gt "$l" ] || { echo "# no more slots than blocks"; return 1; }
	[ "$(cat "$ZRAM_SYS/writeback_limit")" = 0 ] || { echo "# limit not 0"; return 1; }
	expect_errno EIO "$ZRAM_SYS/writeback" idle || return 1
	[ "$(bd_writes)" = "$l" ] || { echo "# wrote past the limit"; return 1; }
	echo 2 >"$ZRAM_SYS/writeback_limit"
	r=$(zram_write "$ZRAM_SYS/writeback" idle)
	[ "$(bd_writes)" = $((l + 2)) ] ||
		{ echo "# raised limit: $r, wrote $(bd_writes)"; return 1; }
	echo 0 >"$ZRAM_SYS/writeback_limit_enable"
	expect_errno OK "$ZRAM_SYS/writeback" idle || return 1
	[ "$(zram_block_state_count w)" = "$pages" ] ||
		{ echo "# disabled: $(zram_block_state_count w) slots written back"; return 1; }
	[ "$(zram_read_all "$ZRAM_DEV" "$pages")" = "$sum" ] || { echo "# data changed"; return 1; }
}

limits=(1 2 3 31 32 33 100)
ktap_plan ${#limits[@]}
for l in "${limits[@]}"; do
	ktap_check "limit $l: exactly $l blocks, then EIO; raise by 2; disable" one_limit "$l"
done
ktap_finish
