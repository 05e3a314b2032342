#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed or out-of-range writeback input is refused with the upstream
# errno and writes nothing: page_index without a number or with trailing
# characters, a mode in upper case, an unknown word: EINVAL; page_index=N
# past the last slot: EINVAL on stock 6.12, ERANGE where page_indexes
# exists (probed); page_indexes with start > end or past the last slot:
# ERANGE, without "-": EINVAL (skipped without page_indexes).

. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
nr_pages=4096

# probed on empty slots, so nothing is written back
has_ranges=0
range_errno=EINVAL
if zram_wb_probe page_indexes=1-1; then
	has_ranges=1
	range_errno=ERANGE
fi
ktap_info "page_indexes supported: $has_ranges"

# idle slots in RAM: a refused write that wrote anything back would show
# in bd_stat, part of the state that must stay unchanged
zram_fill_pages "$ZRAM_DEV" 0 16 text
echo all >"$ZRAM_SYS/idle"

rows=(
	"writeback|page_index=|EINVAL"
	"writeback|page_index=1x|EINVAL"
	"writeback|page_index=$nr_pages|$range_errno"
	"writeback|IDLE|EINVAL"
	"writeback|bogus|EINVAL"
	"writeback|type=|EINVAL"
)
range_rows=(
	"writeback|page_indexes=5-2|ERANGE"
	"writeback|page_indexes=0-$nr_pages|ERANGE"
	"writeback|page_indexes=7|EINVAL"
)

ktap_plan $((${#rows[@]} + ${#range_rows[@]}))
zram_check_input_rows "" "${rows[@]}"
if [ "$has_ranges" = 1 ]; then
	zram_check_input_rows "" "${range_rows[@]}"
else
	for row in "${range_rows[@]}"; do
		ktap_skip "writeback '$(echo "$row" | cut -d'|' -f2)'" \
			"no page_indexes support (stock 6.12)"
	done
fi
ktap_finish
