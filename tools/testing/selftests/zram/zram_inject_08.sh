#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A REQ_NOWAIT read of a written-back slot never waits for a bio of the
# mempool that backing-device reads come from. zram_inject_07 cannot see
# this: when the slab fails, the mempool's reserve serves a GFP that may
# sleep and one that may not alike, until the reserve is empty. Here:
#  - failslab fails every bio allocation (under bio_alloc_bioset) of the
#    tasks marked make-it-fail that cannot sleep (ignore-gfp-wait);
#  - two blocking O_DIRECT reads (dd, marked) of written-back slots take
#    the reserve's two bios and wait in the suspended backing device, a
#    dm-linear;
#  - a preadv2(RWF_NOWAIT) of a third slot (fio, marked) must then fail
#    with EAGAIN while the device is still suspended, having issued no
#    bio to it. A read that allocates with a GFP that may sleep gets its
#    bio from the slab on the mempool's second try, which may sleep and is
#    never failed, and is held in the device.
# After resume the blocking reads return their data. Whole pages, then
# packed objects (compressed_writeback on: the read of the blocks that
# hold the object). Needs the debug kernel's fault injection and the
# block_bio_queue tracepoint; skips where zram refuses RWF_NOWAIT (stock
# 6.12).

# shellcheck disable=SC2317 # held and got_data run through ktap_check
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio dd cmp
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_pv_init

work=$(mktemp -d /tmp/zram-mempool.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# backing KIND: the suspendable dm-linear as the backing device of a fresh
# zram device (zram_pv_wb_setup: KIND page or packed), its bios traced;
# sets KIND.
backing() {
	zram_pv_suspendable_dev
	zram_pv_wb_setup "$DM" "$1"
	KIND=$1
	zram_bio_trace_dev "$DM" || ktap_skip_all "no block_bio_queue tracepoint"
}

# page_read N FILE [DD_OPERAND...]: the page N of $ZRAM_DEV into FILE,
# O_DIRECT.
page_read() {
	dd if="$ZRAM_DEV" of="$2" bs=4k skip="$1" count=1 iflag=direct \
		status=none "${@:3}"
}

# held: both dd still run and the device holds two of their bios at least.
held() {
	[ "$(zram_bio_trace_count dd)" -ge 2 ] &&
		kill -0 "$d0" 2>/dev/null && kill -0 "$d1" 2>/dev/null
}

# got_data: both dd succeeded, with the pages' data.
got_data() {
	wait "$d0" && wait "$d1" &&
		cmp -s "$work/want0" "$work/got0" && cmp -s "$work/want1" "$work/got1"
}

# checks: the checks on the device backing() made.
checks() {
	local reader ended f0 injected err n

	ktap_eq "$KIND: setup: pages 0-63 on the backing device" \
		"$(zram_pv_wb_count "$KIND")" 64
	if ! page_read 0 "$work/want0" || ! page_read 1 "$work/want1"; then
		ktap_bail "cannot read pages 0 and 1"
	fi

	dmsetup suspend "$DM_NAME" || ktap_bail "cannot suspend $DM_NAME"
	zram_defer dmsetup resume "$DM_NAME"
	zram_bio_trace_start
	zram_fi_count
	f0=$FI_COUNT
	zram_fi_random 100
	zram_fi_task page_read 0 "$work/got0" &
	d0=$!
	zram_fi_task page_read 1 "$work/got1" &
	d1=$!
	# Each of the dd's bios took a bio of the reserve, or found it empty.
	for ((n = 0; n < 300; n++)); do
		[ "$(zram_bio_trace_count dd)" -ge 2 ] && break
		sleep 0.2
	done
	ktap_check "$KIND: two blocking reads wait in the suspended device" held

	zram_fi_task zram_pv_job "$ZRAM_DEV" wb 8k 4k --rw=read --nowait=1 \
		--do_verify=1 --continue_on_error=read --ignore_error=EAGAIN &
	reader=$!
	# 60 s: a read that returns at once may take seconds to start on a
	# loaded debug kernel
	ended=
	zram_pid_ended "$reader" 60 && ended=1
	zram_fi_random 0
	zram_fi_count
	injected=$((FI_COUNT - f0))
	zram_bio_trace_stop
	err=$(zram_pv_json job error)
	ktap_info "$KIND: RWF_NOWAIT read: ${ended:+ended, }error ${err:-?};" \
		"bios queued: $(zram_bio_trace_count dd) by dd," \
		"$(zram_bio_trace_count fio) by fio; $injected failures injected"
	ktap_eq "$KIND: the RWF_NOWAIT read fails with EAGAIN at once" \
		"${ended:-waits} $err" "1 11"
	ktap_eq "$KIND: it issued no bio to the device" \
		"$(zram_bio_trace_count fio)" 0
	ktap_eq "$KIND: bio allocations were failed" \
		"$([ "$injected" -ge 3 ] && echo yes)" yes

	dmsetup resume "$DM_NAME" || ktap_bail "cannot resume $DM_NAME"
	wait "$reader"
	ktap_check "$KIND: after resume the blocking reads return their data" \
		got_data
	zram_pv_nowait_read "$ZRAM_DEV" wb 8k 4k
	ktap_check "$KIND: then the RWF_NOWAIT read returns its data" \
		zram_pv_all_data 1
}

backing page
zram_pv_probe 256k
[ "$PV_NOWAIT" = 1 ] ||
	ktap_skip_all "RWF_NOWAIT -> EOPNOTSUPP: no BLK_FEAT_NOWAIT (stock 6.12)"
zram_fi_alloc_setup || ktap_bail "cannot set up fault injection"
for k in failslab fail_page_alloc; do
	zram_fi_set "$k" ignore-gfp-wait Y || ktap_bail "cannot set ignore-gfp-wait"
done
range=$(zram_symbol_range bio_alloc_bioset) ||
	ktap_skip_all "no bio_alloc_bioset in /proc/kallsyms"
zram_fi_filter "$range" || ktap_bail "cannot limit faults to bio_alloc_bioset"

ktap_plan 14
checks
if zram_attr_exists compressed_writeback; then
	backing packed
	checks
else
	ktap_skip_n 7 "packed" "no compressed_writeback attribute"
fi
ktap_finish
