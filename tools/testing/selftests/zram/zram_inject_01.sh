#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures inside zram during writeback (failslab and
# fail_page_alloc, only allocations with zram code on the stack): the Nth
# such allocation of the writing task fails, for N = 1, 2, ... 8, then
# sparser (zram_fi_nth_list), until a writeback makes fewer than N of
# them; then 20% of them fail at random.
# Every writeback succeeds or fails with ENOMEM, no data is lost, bd_count
# always matches the slots written back, a writeback without faults then
# writes everything, and once everything is discarded no block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_require_cmd blkdiscard
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
# a backing device that completes like hardware: from a timer
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"

pages=96
rounds=${ZRAM_FI_ROUNDS:-4}
work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
image=$work/image

ktap_plan 13

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 $((pages / 2)) random
zram_fill_pages "$ZRAM_DEV" $((pages / 2)) $((pages / 2)) text
dd if="$ZRAM_DEV" of="$image" bs=4096 count=$pages iflag=direct 2>/dev/null
sum=$(zram_read_all "$ZRAM_DEV" $pages)
zram_fi_alloc_setup null_blk || ktap_bail "cannot set up fault injection"

# refill: the same data again, in RAM (overwriting frees the blocks)
refill() {
	dd if="$image" of="$ZRAM_DEV" bs=4096 count=$pages oflag=direct \
		conv=notrunc 2>/dev/null && echo all >"$ZRAM_SYS/idle"
}

# after_fault WHAT: data and block accounting after a faulted writeback;
# collects problems in the arrays below.
lost=()
inconsistent=()
after_fault() {
	local got

	got=$(zram_read_all "$ZRAM_DEV" $pages)
	[ "$got" = "$sum" ] || lost+=("$1")
	zram_blocks_consistent ||
		inconsistent+=("$1: bd_count $(bd_count), written back $(zram_block_state_count w)")
}

# 1: the Nth allocation fails
bad=()
tried=()
reached=0
for n in $(zram_fi_nth_list); do
	refill || ktap_bail "cannot refill the device"
	zram_fi_nth_write "$ZRAM_SYS/writeback" idle "$n"
	[ "$FI_LEFT" = 0 ] || break
	reached=$n
	tried+=("$n:$FI_RESULT")
	case $FI_RESULT in
	OK | ENOMEM) ;;
	*)
		bad+=("N=$n: $FI_RESULT")
		ktap_info "N=$n: $FI_RESULT after this failure:"
		zram_fi_last_stack
		;;
	esac
	after_fault "N=$n"
done
ktap_info "writeback of $pages pages, Nth allocation in zram failing: ${tried[*]}"
ktap_info "the last N reached: $reached (a writeback makes fewer than the next N tried)"
ktap_check "allocations in zram failed during writeback" [ "$reached" -gt 0 ]
ktap_eq "every writeback with the Nth allocation failing: OK or ENOMEM" "${bad[*]}" ""
ktap_eq "no data lost" "${lost[*]}" ""
ktap_eq "bd_count == written-back slots after each" "${inconsistent[*]}" ""

# 2: 20% of them fail, writeback by a marked task
bad=()
lost=()
inconsistent=()
zram_fi_count
f0=$FI_COUNT
# A driver that allocates once per writeback (stock) may see no failure
# in a few rounds; go on until one is injected, up to 40 rounds (0.8^40).
r=0
while ((++r <= rounds)) || { zram_fi_count && [ "$FI_COUNT" -eq "$f0" ] &&
	((r <= 40)); }; do
	refill || ktap_bail "cannot refill the device"
	zram_fi_random 20
	# shellcheck disable=SC2016 # expanded by the inner shell
	msg=$(zram_fi_task bash -c 'printf "idle\n" >"$1"' - "$ZRAM_SYS/writeback" 2>&1)
	rc=$?
	zram_fi_random 0
	if [ "$rc" != 0 ]; then
		case $(zram_errno_name "$msg") in
		ENOMEM) ;;
		*) bad+=("round $r: $msg") ;;
		esac
	fi
	after_fault "round $r"
done
zram_fi_count
ktap_info "random failures injected: $((FI_COUNT - f0)) in $((r - 1)) writebacks"
ktap_check "random allocation failures were injected" [ "$FI_COUNT" -gt "$f0" ]
ktap_eq "every writeback with random failures: OK or ENOMEM" "${bad[*]}" ""
ktap_eq "no data lost (random)" "${lost[*]}" ""
ktap_eq "bd_count == written-back slots (random)" "${inconsistent[*]}" ""

# 3: no faults: everything fits and reads back
refill || ktap_bail "cannot refill the device"
ktap_check "writeback without faults succeeds" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "every slot written back" "$(bd_count)" "$pages"
zram_drop_caches
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" $pages)" "$sum"

blkdiscard "$ZRAM_DEV"
ktap_eq "discard of everything frees every block" "$(bd_count)" 0
ktap_eq "orig_data_size 0 after discarding everything" "$(zram_field mm_stat 1)" 0

ktap_finish
