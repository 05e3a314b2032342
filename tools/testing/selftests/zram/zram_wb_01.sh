#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback modes: idle, huge, huge_idle, incompressible, page_index=N and,
# when the driver has them (probed), page_indexes=A-B, type=MODE and several
# parameters in one write. Each successful write returns its full length
# and writes back exactly the eligible slots; bad syntax and out-of-range
# indexes fail; before init EINVAL.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
wb=$ZRAM_SYS/writeback
nr_pages=4096

first_pages_sum() {
	dd if="$ZRAM_DEV" bs=4096 count=72 iflag=direct 2>/dev/null | sha256sum
}

ktap_plan 33

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
ktap_check "writeback before init -> EINVAL" expect_errno EINVAL "$wb" idle
zram_init 16M || ktap_bail "cannot set disksize"

# 0-31 incompressible (huge), 32-63 compressible, 64-71 same-filled
zram_fill_pages "$ZRAM_DEV" 0 32 random
zram_fill_pages "$ZRAM_DEV" 32 32 text
zram_fill_pages "$ZRAM_DEV" 64 8 zero

ktap_check "huge returns its full length" zram_write_full "$wb" huge
ktap_eq "huge wrote back the 32 huge slots" "$(bd_count)" 32
ktap_check "page_index=40 returns its full length" zram_write_full "$wb" page_index=40
ktap_eq "page_index=40 wrote back one slot" "$(bd_count)" 33
ktap_check "page_index of a written-back slot succeeds" expect_errno OK "$wb" page_index=40
ktap_check "page_index of a same-filled slot succeeds" expect_errno OK "$wb" page_index=70
ktap_check "page_index of an empty slot succeeds" expect_errno OK "$wb" page_index=100
ktap_eq "none of them wrote anything" "$(bd_count)" 33
ktap_check "incompressible returns its full length" zram_write_full "$wb" incompressible
ktap_eq "incompressible: no slot is incompressible without recompression" "$(bd_count)" 33

zram_fill_pages "$ZRAM_DEV" 0 8 random
sum=$(first_pages_sum)
ktap_eq "overwriting 8 written-back slots frees their blocks" "$(bd_count)" 25
ktap_check "huge_idle returns its full length" zram_write_full "$wb" huge_idle
ktap_eq "huge_idle skips huge slots not marked idle" "$(bd_count)" 25
echo all >"$ZRAM_SYS/idle"
echo huge_idle >"$wb"
ktap_eq "huge_idle writes back idle huge slots" "$(bd_count)" 33
ktap_check "idle returns its full length" zram_write_full "$wb" idle
ktap_eq "idle wrote back the 31 idle compressible slots" "$(bd_count)" 64

range_errno=EINVAL
if [ "$(zram_write "$wb" "page_indexes=1-1")" = EINVAL ]; then
	has_ranges=0
else
	has_ranges=1
	range_errno=ERANGE
fi
ktap_info "page_indexes supported: $has_ranges"

ktap_check "page_index= -> EINVAL" expect_errno EINVAL "$wb" "page_index="
ktap_check "page_index=1x -> EINVAL" expect_errno EINVAL "$wb" "page_index=1x"
ktap_check "page_index=$nr_pages (out of range) -> $range_errno" \
	expect_errno "$range_errno" "$wb" "page_index=$nr_pages"
ktap_check "IDLE (case) -> EINVAL" expect_errno EINVAL "$wb" IDLE
ktap_check "empty -> EINVAL" expect_errno EINVAL "$wb" ""
ktap_eq "data intact after the writebacks" "$(first_pages_sum)" "$sum"

zram_fill_pages "$ZRAM_DEV" 100 10 text
if [ "$has_ranges" = 1 ]; then
	ktap_check "page_indexes=101-104 returns its full length" \
		zram_write_full "$wb" page_indexes=101-104
	ktap_eq "page_indexes=101-104 wrote back 4 slots (inclusive)" "$(bd_count)" 68
	ktap_check "page_indexes=5-2 (start > end) -> ERANGE" \
		expect_errno ERANGE "$wb" page_indexes=5-2
	ktap_check "page_indexes=0-$nr_pages -> ERANGE" \
		expect_errno ERANGE "$wb" "page_indexes=0-$nr_pages"
	ktap_check "page_indexes=7 -> EINVAL" expect_errno EINVAL "$wb" page_indexes=7
	resident=6
else
	for d in "page_indexes=101-104 full length" "page_indexes range count" \
		"page_indexes=5-2 -> ERANGE" "page_indexes out of range -> ERANGE" \
		"page_indexes=7 -> EINVAL"; do
		ktap_skip "$d" "no page_indexes support (stock 6.12)"
	done
	resident=10
fi

count=$(bd_count)
if [ "$(zram_write "$wb" type=huge)" = EINVAL ]; then
	ktap_skip "type=idle full length" "no type= support (stock 6.12)"
	ktap_skip "type=idle count" "no type= support (stock 6.12)"
else
	echo all >"$ZRAM_SYS/idle"
	ktap_check "type=idle returns its full length" zram_write_full "$wb" type=idle
	ktap_eq "type=idle wrote back the $resident idle slots" "$(bd_count)" $((count + resident))
fi

zram_fill_pages "$ZRAM_DEV" 120 2 text
count=$(bd_count)
if [ "$(zram_write "$wb" "page_index=120 page_index=121")" = EINVAL ]; then
	ktap_skip "two page_index parameters in one write" "not supported (stock 6.12)"
else
	ktap_eq "two page_index parameters in one write" "$(bd_count)" $((count + 2))
fi

# The same slot twice in one write: the second range must wait for the
# first one's bio, then skip the written-back slot (one block, one write).
zram_fill_pages "$ZRAM_DEV" 122 1 text
sum=$(dd if="$ZRAM_DEV" bs=4096 skip=122 count=1 iflag=direct 2>/dev/null | sha256sum)
count=$(bd_count)
writes=$(bd_writes)
if [ "$(zram_write "$wb" "page_index=122 page_index=122")" = EINVAL ]; then
	ktap_skip "the same page_index twice" "not supported (stock 6.12)"
else
	ktap_eq "the same page_index twice writes one block" \
		"$(bd_count) $(bd_writes)" "$((count + 1)) $((writes + 1))"
fi
ktap_eq "slot 122 intact" \
	"$(dd if="$ZRAM_DEV" bs=4096 skip=122 count=1 iflag=direct 2>/dev/null | sha256sum)" "$sum"

ktap_finish
