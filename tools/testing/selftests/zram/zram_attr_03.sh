#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Numbers whose arithmetic would wrap: every numeric attribute refuses
# them with EINVAL (or upstream's errno) and changes nothing, or clamps
# them; no kernel message (run_all.sh fails a test that adds a WARNING).
# disksize of 2^64-1 bytes (rounding up to pages would wrap to 0), of a
# suffixed number past 2^64 ("17179869185G" would be 1 GiB after the
# wrap) or past the 2^32 slots a slot index can address: EINVAL. mem_limit
# of 2^64-1 after init: accepted, and the limit is not 0 ("unlimited").

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"

u64max=18446744073709551615
# attribute | input | errno
before_init=(
	"disksize|$u64max|EINVAL"
	"disksize|17179869185G|EINVAL"
	"disksize|18446744073709551616|EINVAL"
	"disksize|16E|EINVAL"
	"disksize|16T|EINVAL"
	"mem_limit|18446744073709551616|EINVAL"
	"mem_limit|16385E|EINVAL"
	"writeback_limit|18446744073709551616|EINVAL"
	"writeback_batch_size|4294967296|EINVAL"
	"algorithm_params|level=2147483648|ERANGE"
	"algorithm_params|priority=4294967296|ERANGE"
)

ktap_plan $((${#before_init[@]} + 3))
zram_check_input_rows "" "${before_init[@]}"

zram_init 16M || ktap_bail "cannot set disksize"
ktap_check "mem_limit $u64max after init is accepted" \
	expect_errno OK "$ZRAM_SYS/mem_limit" "$u64max"
limit=$(zram_field mm_stat 4)
ktap_info "mm_stat mem_limit: $limit"
ktap_check "mem_limit $u64max is not 0 (unlimited) after the rounding" \
	[ "$limit" != 0 ]
zram_fill_pages "$ZRAM_DEV" 0 16 text
ktap_eq "the device still takes data" \
	"$(dd if="$ZRAM_DEV" bs=4096 count=16 iflag=direct 2>/dev/null | sha256sum)" \
	"$(sha256sum <"$TEXT_FILE")"
ktap_finish
