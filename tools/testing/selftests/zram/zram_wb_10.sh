#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writeback bios carry folios: one large folio per request when the page
# allocator has one at hand, order-0 folios when not. The debugfs knob
# wb_large_folios=0 forces the fallback. Either way, with and (when the
# driver has it) without compressed_writeback, the same slots go to the
# same number of blocks and read back intact. Stock 6.12 has no such knob:
# the test skips.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_nullb 16 irqmode=2 completion_nsec=20000 || ktap_skip_all "cannot create null_blk"
dbg=/sys/kernel/debug/zram/zram$ZRAM_ID
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
[ -w "$dbg/wb_large_folios" ] || ktap_skip_all "no debugfs wb_large_folios (stock 6.12)"
echo 1 >"$ZRAM_SYS/reset"
modes=(0)
zram_attr_exists compressed_writeback && modes+=(1)
pages=1024

# run PACKED LARGE: one idle writeback of mixed data; sets SUM, WB_STAT
run() {
	echo 1 >"$ZRAM_SYS/reset"
	[ "$1" = 1 ] && echo 1 >"$ZRAM_SYS/compressed_writeback"
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" && zram_init 16M || return 1
	echo "$2" >"$dbg/wb_large_folios" || return 1
	zram_fill_pages "$ZRAM_DEV" 0 $((pages / 2)) text &&
		zram_fill_pages "$ZRAM_DEV" $((pages / 2)) $((pages / 2)) random || return 1
	SUM=$(zram_read_all "$ZRAM_DEV" "$pages")
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" || return 1
	zram_drop_caches
	WB_STAT="$(bd_stat) large $(zram_wb_stat bios_large_folio)"
	WB_STAT+=" order0 $(zram_wb_stat bios_order0_folios)"
}

ktap_plan $((${#modes[@]} * 5))
for packed in "${modes[@]}"; do
	run "$packed" 1 || ktap_bail "setup failed"
	ktap_info "compressed_writeback $packed, large folios: $WB_STAT"
	ktap_check "packed $packed: large folios carry the bios" \
		test "$(zram_wb_stat bios_large_folio)" -gt 0
	ktap_eq "packed $packed, large folios: data intact" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")" "$SUM"
	count=$(bd_count)

	run "$packed" 0 || ktap_bail "setup failed"
	ktap_info "compressed_writeback $packed, order-0 folios: $WB_STAT"
	ktap_eq "packed $packed: order-0 folios carry every bio when forced" \
		"$(zram_wb_stat bios_large_folio) $(($(zram_wb_stat bios_order0_folios) > 0))" "0 1"
	ktap_eq "packed $packed, order-0 folios: data intact" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")" "$SUM"
	ktap_eq "packed $packed: the same blocks either way" "$(bd_count)" "$count"
done
ktap_finish
