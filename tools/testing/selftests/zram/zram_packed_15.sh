#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver's own metadata, and the packing state of compressed writeback
# set up with the device, not by a writeback. A 4 GiB backing device
# (null_blk, memory backed: only written blocks take RAM) and
# compressed_writeback, then disksize 64 MiB: debugfs metadata shows 16
# bytes per slot, backing maps of 2 bits per block, and the packing state
# of 2 bytes per block with its reserve of packed reads, all there before
# any writeback. Where fault injection is available, the Nth allocation in
# zram of the disksize store fails, for N = 1, 2, ... 8, then sparser
# (zram_fi_nth_list), until the store makes fewer, then each fault point
# under the read reserve's setup in turn: it fails with ENOMEM and changes
# nothing (disksize 0, the backing device and compressed_writeback kept),
# or succeeds with every map there. Then 48 MiB are written back, packed, by a shell in a
# memory cgroup with 16 MiB of room: the writeback succeeds, allocates no
# metadata, and the data read back intact.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_require_packed
zram_require_memcg || ktap_skip_all "no cgroup v2 memory controller"
grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug >/dev/null 2>&1
meta=/sys/kernel/debug/zram/zram$ZRAM_ID/metadata
[ -r "$meta" ] ||
	ktap_skip_all "no debugfs metadata (stock, or no CONFIG_ZRAM_MEMORY_TRACKING)"
zram_nullb 4096 || ktap_skip_all "cannot create null_blk"
blocks=$((4096 * 256))
slots=$((64 * 256))
pages=$((48 * 256))

# the lines of debugfs metadata
declare -A META

# setup: compressed_writeback and the backing device of an uninitialized
# device
setup() {
	echo 1 >"$ZRAM_SYS/compressed_writeback" &&
		echo "$NULLB" >"$ZRAM_SYS/backing_dev"
}

# unchanged: what a failed disksize store must leave
unchanged() {
	zram_kv_read "$meta" META
	[ "$(cat "$ZRAM_SYS/disksize")" = 0 ] &&
		[ "$(cat "$ZRAM_SYS/backing_dev")" = "$NULLB" ] &&
		[ "$(cat "$ZRAM_SYS/compressed_writeback")" = 1 ] &&
		[ "${META[slot_table]}" = 0 ] && [ "${META[packing]}" = 0 ] &&
		[ "${META[read_reserve]}" = 0 ]
}

ktap_plan 11

setup || ktap_bail "cannot set up the backing device"
zram_kv_read "$meta" META
ktap_eq "before disksize: no slot table, no packing state, no read reserve" \
	"${META[slot_table]} ${META[packing]} ${META[read_reserve]}" "0 0 0"
maps=${META[backing_maps]}
ktap_eq "backing maps: 2 bits per block" "$maps" $((blocks / 4))

if [ -e "$ZRAM_FI/failslab/require-start" ] &&
	[ -e "$ZRAM_FI/fail_page_alloc/require-start" ]; then
	zram_fi_alloc_setup || ktap_bail "cannot set up fault injection"
	bad='' failed=0 tried=0
	for n in $(zram_fi_nth_list); do
		zram_fi_nth_write "$ZRAM_SYS/disksize" 64M "$n"
		[ "$FI_LEFT" = "$n" ] && break
		tried=$((tried + 1))
		if [ "$FI_RESULT" = OK ]; then
			zram_kv_read "$meta" META
			[ "${META[packing]}" = $((blocks * 2)) ] ||
				bad+=" N=$n: OK without the packing state;"
		elif [ "$FI_RESULT" = ENOMEM ]; then
			failed=$((failed + 1))
			unchanged || bad+=" N=$n: ENOMEM changed the device;"
			continue
		else
			bad+=" N=$n: $FI_RESULT;"
		fi
		if ! echo 1 >"$ZRAM_SYS/reset" || ! setup; then
			ktap_bail "cannot reset and set up again"
		fi
	done
	ktap_info "disksize failed with ENOMEM $failed times in $tried tries (N up to $n)"
	ktap_eq "a failed disksize store: ENOMEM and no change" "$bad" ""
	ktap_check "some allocation of the store was failed" test "$failed" -gt 0

	# each allocation of the read reserve
	range=$(zram_symbol_range zram_bdev_read_reserve_init) ||
		ktap_bail "no zram_bdev_read_reserve_init in /proc/kallsyms"
	zram_fi_filter "$range" || ktap_bail "cannot limit faults to the reserve"
	bad='' failed=0 tried=0
	for ((n = 1; n <= 16; n++)); do
		zram_fi_nth_write "$ZRAM_SYS/disksize" 64M "$n"
		[ "$FI_LEFT" = "$n" ] && break
		tried=$n
		if [ "$FI_RESULT" = ENOMEM ]; then
			failed=$((failed + 1))
			unchanged || bad+=" N=$n: ENOMEM changed the device;"
			continue
		fi
		# OK: the failure had a fallback (a slab's smaller order)
		zram_kv_read "$meta" META
		[ "$FI_RESULT" = OK ] && [ "${META[read_reserve]:-0}" -gt 0 ] ||
			bad+=" N=$n: $FI_RESULT, read_reserve ${META[read_reserve]};"
		if ! echo 1 >"$ZRAM_SYS/reset" || ! setup; then
			ktap_bail "cannot reset and set up again"
		fi
	done
	ktap_info "the read reserve's allocations: ENOMEM $failed times in $tried tries"
	ktap_eq "a read reserve not allocated: ENOMEM and no change" \
		"$bad $([ "$failed" -gt 0 ] && echo some)" " some"
else
	ktap_skip_n 3 "disksize under allocation faults" "no fault injection"
fi

# as set up, uninitialized, whatever the sweep left
if ! echo 1 >"$ZRAM_SYS/reset" || ! setup; then
	ktap_bail "cannot reset and set up again"
fi
zram_init 64M || ktap_bail "cannot set disksize"
zram_kv_read "$meta" META
ktap_eq "after disksize: 16-byte slots, 2 bytes of packing state per block" \
	"${META[slot_table]} ${META[packing]}" "$((slots * 16)) $((blocks * 2))"
ktap_check "after disksize: a read reserve of two two-page buffers at least" \
	test "${META[read_reserve]:-0}" -ge $((4 * 4096))
before="${META[slot_table]} ${META[backing_maps]} ${META[packing]} ${META[read_reserve]}"
zram_fill_pages "$ZRAM_DEV" 0 "$pages" text
want=$(zram_read_all "$ZRAM_DEV" "$pages")
zram_memcg 16 || ktap_bail "cannot create a memory cgroup"
# the writer, alone in the cgroup
(
	echo "$BASHPID" >"$MEMCG/cgroup.procs" || exit 1
	echo all >"$ZRAM_SYS/idle" && echo idle >"$ZRAM_SYS/writeback"
)
ktap_eq "packed writeback from a 16 MiB memory cgroup" "$?" 0
ktap_check "most of the slots were written back packed" \
	test "$(zram_wb_stat packed_objects)" -ge $((pages / 2))
zram_kv_read "$meta" META
ktap_eq "the writeback allocated no metadata" \
	"${META[slot_table]} ${META[backing_maps]} ${META[packing]} ${META[read_reserve]}" \
	"$before"
ktap_eq "the data read back intact" "$(zram_read_all "$ZRAM_DEV" "$pages")" \
	"$want"
ktap_finish
