#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures inside zram while written-back slots are read
# (failslab and fail_page_alloc, only allocations with zram code on the
# stack): an O_DIRECT reader whose Nth such allocation fails, for N = 1,
# 2, ... 8, then sparser (zram_fi_nth_list), until a read makes fewer than
# N of them, with 64 KiB and 4 KiB reads; then O_DIRECT and buffered
# readers failing 20% of them at random. A read either returns the right
# data or fails with EIO or ENOMEM; nothing is lost (the data reads back
# intact without faults, also from the page cache), reads do not change
# bd_count, and once everything is discarded no block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_require_cmd blkdiscard
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"

pages=96
rounds=${ZRAM_FI_ROUNDS:-4}
work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

ktap_plan 12

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 $((pages / 2)) random
zram_fill_pages "$ZRAM_DEV" $((pages / 2)) $((pages / 2)) text
sum=$(zram_read_all "$ZRAM_DEV" $pages)
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback" || ktap_bail "writeback failed"
[ "$(bd_count)" = "$pages" ] || ktap_bail "only $(bd_count) of $pages slots written back"
zram_fi_alloc_setup null_blk || ktap_bail "cannot set up fault injection"

# read_pages BS HOW [N]: read the first $pages pages in BS-byte reads into
# $work/out, by a process that is, with HOW:
#   nth     an O_DIRECT reader whose Nth allocation in zram fails
#   direct  an O_DIRECT reader marked make-it-fail (zram_fi_random)
#   cache   a buffered reader marked make-it-fail
# Sets READ_RESULT to OK, or the errno name.
read_pages() {
	local bs=$1 how=$2 n=${3:-} flags=(iflag=direct)

	[ "$how" = cache ] && flags=()
	if (
		if [ "$how" = nth ]; then
			echo "$n" >/proc/self/fail-nth || exit 1
		else
			echo 1 >/proc/self/make-it-fail || exit 1
		fi
		exec dd if="$ZRAM_DEV" of="$work/out" bs="$bs" \
			count=$((pages * 4096 / bs)) "${flags[@]}"
	) 2>"$work/err"; then
		READ_RESULT=OK
	else
		READ_RESULT=$(zram_errno_name "$(grep -v records "$work/err")")
	fi
}

bad=()
wrong=()
lost=()
check_read() {
	case $READ_RESULT in
	OK)
		[ "$(sha256sum <"$work/out" | cut -d' ' -f1)" = "$sum" ] ||
			wrong+=("$1")
		;;
	EIO | ENOMEM) ;;
	*)
		bad+=("$1: $READ_RESULT")
		ktap_info "$1: $READ_RESULT after this failure:"
		zram_fi_last_stack
		;;
	esac
	[ "$(zram_read_all "$ZRAM_DEV" $pages)" = "$sum" ] || lost+=("$1")
}

# 1: the Nth allocation of an O_DIRECT reader fails
declare -A reached
for bs in 65536 4096; do
	reached[$bs]=0
	tried=()
	for n in $(zram_fi_nth_list); do
		zram_fi_count
		f0=$FI_COUNT
		read_pages "$bs" nth "$n"
		zram_fi_count
		[ "$FI_COUNT" -gt "$f0" ] || break
		reached[$bs]=$n
		tried+=("$n:$READ_RESULT")
		check_read "bs=$bs N=$n"
	done
	ktap_info "$bs-byte reads of $pages written-back pages, Nth allocation" \
		"in zram failing: ${tried[*]}"
done
ktap_check "allocations in zram failed during 64 KiB reads" [ "${reached[65536]}" -gt 0 ]
ktap_check "allocations in zram failed during 4 KiB reads" [ "${reached[4096]}" -gt 0 ]

# 2: 20% at random, O_DIRECT and buffered (readahead) readers
zram_fi_count
f0=$FI_COUNT
for ((r = 1; r <= rounds; r++)); do
	zram_fi_random 20
	read_pages 65536 direct
	zram_fi_random 0
	check_read "random direct round $r"
	zram_drop_caches
	zram_fi_random 20
	read_pages 65536 cache
	zram_fi_random 0
	check_read "random buffered round $r"
	# what the page cache now holds must be right too
	[ "$(zram_read_buffered "$ZRAM_DEV" "$pages")" = "$sum" ] ||
		wrong+=("page cache after buffered round $r")
	zram_drop_caches
done
zram_fi_count
ktap_info "random failures injected: $((FI_COUNT - f0)) in $((2 * rounds)) reads"
ktap_check "random allocation failures were injected" [ "$FI_COUNT" -gt "$f0" ]

ktap_eq "every faulted read: data or EIO/ENOMEM" "${bad[*]}" ""
ktap_eq "no faulted read returned wrong data" "${wrong[*]}" ""
ktap_eq "no data lost" "${lost[*]}" ""
ktap_eq "reads left bd_count alone" "$(bd_count)" "$pages"
ktap_check "bd_count == written-back slots" zram_blocks_consistent

zram_drop_caches
ktap_eq "data intact without faults" "$(zram_read_all "$ZRAM_DEV" $pages)" "$sum"
ktap_eq "bd_stat writes unchanged by reads" "$(bd_writes)" "$pages"
blkdiscard "$ZRAM_DEV"
ktap_eq "discard of everything frees every block" "$(bd_count)" 0
ktap_eq "orig_data_size 0 after discarding everything" "$(zram_field mm_stat 1)" 0

ktap_finish
