#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The statistics that only change at a limit, a reset or the last slot.
# mem_limit is enforced: 8 MiB of random data over a 2 MiB limit fails,
# the pool stays near the limit, io_stat counts failed writes and no
# failed read; "0" to mem_used_max sets it to the pool's current size;
# mm_stat's huge_pages counts huge slots stored now and huge_pages_since
# every one stored since init; debug_stat is 7.3's two lines, a literal 0
# then miss_free; debugfs block_state lists the last slot, its access time
# in whole seconds (".000000");
# compact moves the objects left in half-empty pool pages together:
# pages_compacted rises, the pool shrinks and every slot keeps its data;
# a reset clears mem_limit and the disk's block-layer stat.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 64M || ktap_skip_all "cannot set disksize"
limit=$((2 * 1024 * 1024))

ktap_plan 12

echo "$limit" >"$ZRAM_SYS/mem_limit" || ktap_bail "cannot set mem_limit"
before=$(zram_counters io_stat:1 io_stat:2)
rc=0
dd if=/dev/urandom of="$ZRAM_DEV" bs=64k count=128 oflag=direct \
	2>/dev/null || rc=$?
ktap_check "8 MiB of random data over a 2 MiB mem_limit: the write fails" \
	test "$rc" -ne 0
used=$(zram_field mm_stat 3)
ktap_info "mem_used_total $used, mem_limit $(zram_field mm_stat 4)"
ktap_check "the pool stays within 256 KiB of the limit" \
	test "$used" -le $((limit + 256 * 1024))
read -r reads writes <<<"$(zram_grew "$before" "$(zram_counters io_stat:1 io_stat:2)")"
ktap_eq "io_stat: failed writes counted, no failed read" \
	"$([ "$writes" -gt 0 ] && echo some) $reads" "some 0"
echo 0 >"$ZRAM_SYS/mem_used_max"
read -r used max <<<"$(zram_counters mm_stat:3 mm_stat:5)"
ktap_eq "0 to mem_used_max sets it to mem_used_total" "$max" "$used"

echo 1 >"$ZRAM_SYS/reset"
zram_init 64M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 4 random
huge=$(zram_counters mm_stat:8 mm_stat:9)
zram_fill_pages "$ZRAM_DEV" 0 4 text
ktap_eq "huge_pages, huge_pages_since: 4 random pages, then text over them" \
	"$huge $(zram_counters mm_stat:8 mm_stat:9)" "4 4 0 4"

# line 1 | line 2's first field, whether its second is a number, fields
ktap_eq "debug_stat: version 1, then 0 and miss_free" \
	"$(awk 'NR == 1 { l1 = $0 } NR == 2 { l2 = $1 " " ($2 ~ /^[0-9]+$/) " " NF }
		END { print l1 "|" l2 "|" NR }' "$ZRAM_SYS/debug_stat")" \
	"version: 1|0 1 2|2"

last=$((64 * 256 - 1))
zram_fill_pages "$ZRAM_DEV" "$last" 1 text
if [ -r "$(zram_block_state_file)" ]; then
	read -r slot atime _ <<<"$(zram_slot_state "$last")"
	ktap_eq "block_state lists the last slot" "$slot" "$last"
	ktap_check "block_state: access time in whole seconds ($atime)" \
		grep -qx '[0-9]*\.000000' <<<"$atime"
else
	ktap_skip "block_state lists the last slot" "no debugfs block_state"
	ktap_skip "block_state: access time in whole seconds" \
		"no debugfs block_state"
fi

# Every other slot of 1024 text pages becomes a zero page, which frees its
# object: each pool page is left half empty until compaction.
zram_fill_pages "$ZRAM_DEV" 0 1024 text
zram_quiet fio --name=holes --filename="$ZRAM_DEV" --ioengine=pvsync2 \
	--direct=1 --rw=write:4k --bs=4k --size=4M --zero_buffers=1 ||
	ktap_bail "cannot zero every other slot"
sum=$(zram_page_sum 0 1024)
before=$(zram_counters mm_stat:3 mm_stat:7)
echo 1 >"$ZRAM_SYS/compact"
read -r used compacted <<<"$(zram_grew "$before" "$(zram_counters mm_stat:3 mm_stat:7)")"
ktap_info "compact: mem_used_total $used bytes, pages_compacted +$compacted"
ktap_eq "compact: pages_compacted rises, mem_used_total falls" \
	"$([ "$compacted" -gt 0 ] && echo rises) $([ "$used" -lt 0 ] && echo falls)" \
	"rises falls"
ktap_eq "compact: every slot keeps its data" "$(zram_page_sum 0 1024)" "$sum"

echo "$limit" >"$ZRAM_SYS/mem_limit"
echo 1 >"$ZRAM_SYS/reset"
zram_init 64M || ktap_bail "cannot set disksize"
ktap_eq "mem_limit 0 after a reset" "$(zram_field mm_stat 4)" 0
ktap_eq "the disk's stat all 0 after a reset" \
	"$(tr -s ' ' '\n' <"/sys/block/zram$ZRAM_ID/stat" | sort -u | tr -d '\n')" 0
ktap_finish
