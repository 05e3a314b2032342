#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration after init: disksize, comp_algorithm and backing_dev fail
# with EBUSY and change nothing; bad input to the attributes that work on
# an initialized device fails with upstream's errno, state unchanged
# (writeback without a backing device: ENODEV whatever the input, as
# 7.x checks it first); max_comp_streams, where the driver has it
# (ours; 7.x dropped it), accepts a write but keeps its value.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_nullb 16 || ktap_skip_all "cannot create a null_blk device"
zram_init 32M || ktap_skip_all "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 16 text

read -r -a algs <"$ZRAM_SYS/comp_algorithm"
other=
for a in "${algs[@]}"; do
	case $a in \[*) ;; *) other=$a ;; esac
done
# page_index out of range is in zram_wb_15: its errno depends on the ABI

rows=(
	"disksize|64M|EBUSY"
	"disksize|32M|EBUSY"
	"disksize|0|EINVAL"
	"backing_dev|$NULLB|EBUSY"
	"backing_dev|/nonexistent/zram-bdev|EBUSY"
	"mem_used_max|1|EINVAL"
	"mem_limit|abc|EINVAL"
	"reset|0|EINVAL"
	"idle|abc|EINVAL"
	"idle|1.5|EINVAL"
	"writeback|idle|ENODEV"
	"writeback|bogus|ENODEV"
	"writeback|page_index=-1|ENODEV"
	"writeback||ENODEV"
	"writeback_limit|abc|EINVAL"
	"writeback_limit_enable|abc|EINVAL"
	"comp_algorithm|nosuchalg|EINVAL"
)
[ -n "$other" ] && rows+=("comp_algorithm|$other|EBUSY")

ktap_plan $((${#rows[@]} + 3))

zram_check_input_rows "initialized: " "${rows[@]}"

if zram_attr_exists max_comp_streams; then
	streams=$(cat "$ZRAM_SYS/max_comp_streams")
	ktap_check "max_comp_streams accepts a write after init" \
		expect_errno OK "$ZRAM_SYS/max_comp_streams" 1
	ktap_eq "max_comp_streams value unchanged" \
		"$(cat "$ZRAM_SYS/max_comp_streams")" "$streams"
else
	ktap_skip_n 2 "max_comp_streams" "no max_comp_streams attribute (7.x)"
fi
ktap_eq "data intact after the failed writes" \
	"$(dd if="$ZRAM_DEV" bs=4096 count=16 iflag=direct 2>/dev/null | sha256sum)" \
	"$(sha256sum <"$TEXT_FILE")"

ktap_finish
