#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A backing device that refuses REQ_NOWAIT bios for a while: a suspended
# dm-linear (which supports nowait) fails each one with BLK_STS_AGAIN at
# once. A preadv2(RWF_NOWAIT) of a written-back slot has then already
# issued its backing read, so the driver issues that read again, blocking,
# from a worker: it waits in the suspended device. The dm device sees the
# read twice, refused and then blocking, never resubmitted in a loop
# (counted with the block_bio_queue tracepoint). Once the device resumes,
# the read returns its data. Then a 64 KiB read of 16 such slots, whose
# blocks follow each other: one backing read, issued twice too. The
# same again with compressed_writeback on, where the slot is a packed
# object and the read that is issued again is of the block holding it,
# into the packed read's buffer.
# Skips where zram refuses RWF_NOWAIT (stock 6.12, see zram_nowait_09);
# the packed pass skips without compressed_writeback.

# shellcheck disable=SC2317 # the cases run through CASES
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_pv_init

# backing KIND: a dm-linear that can be suspended as the backing device of
# a fresh zram device (zram_pv_wb_setup: KIND page or packed); sets KIND,
# and SIZE, the read's, to 4k. The bio trace counts the dm device's bios;
# sets traced when it can.
backing() {
	zram_pv_suspendable_dev
	zram_pv_wb_setup "$DM" "$1"
	KIND=$1
	SIZE=4k
	traced=
	zram_bio_trace_dev "$DM" && traced=1
}

reader=
suspended() {
	ktap_eq "$KIND $SIZE: setup: pages 0-63 on the backing device" \
		"$(zram_pv_wb_count "$KIND")" 64
	dmsetup suspend "$DM_NAME" || ktap_bail "cannot suspend $DM_NAME"
	zram_defer dmsetup resume "$DM_NAME"
	[ -z "$traced" ] || zram_bio_trace_start
	zram_pv_job "$ZRAM_DEV" wb 0 "$SIZE" --rw=read --bs="$SIZE" --nowait=1 \
		--do_verify=1 &
	reader=$!
}
# The read has reached the dm device once the tracepoint saw its first bio
# (fio may take seconds to start on a loaded debug kernel); 2 s later it
# must still wait. Without the tracepoint, 10 s after fio was started.
waits() {
	local i

	if [ -n "$traced" ]; then
		for ((i = 0; i < 600; i++)); do
			[ "$(zram_bio_trace_count all)" -ge 1 ] && break
			kill -0 "$reader" 2>/dev/null || break
			sleep 0.2
		done
		sleep 2
	else
		sleep 10
	fi
	ktap_check "$KIND $SIZE: the RWF_NOWAIT read waits while the device is suspended" \
		kill -0 "$reader"
}
issued_once() {
	local n

	if [ -z "$traced" ]; then
		ktap_skip "$KIND $SIZE: its backing read is issued twice: nowait, then blocking" \
			"no block_bio_queue tracepoint"
		return
	fi
	zram_bio_trace_stop
	n=$(zram_bio_trace_count all)
	ktap_info "$KIND $SIZE: backing reads issued to the suspended device: $n"
	ktap_eq "$KIND $SIZE: its backing read is issued twice: nowait, then blocking" "$n" 2
}
resumed() {
	dmsetup resume "$DM_NAME"
	ktap_check "$KIND $SIZE: after resume the read returns its data" wait "$reader"
}

CASES=(suspended waits issued_once resumed)

# cases: each case of CASES in turn, on the device backing() made.
cases() {
	local c

	for c in "${CASES[@]}"; do
		"$c"
	done
}

backing page
zram_pv_probe 256k
[ "$PV_NOWAIT" = 1 ] ||
	ktap_skip_all "RWF_NOWAIT -> EOPNOTSUPP: no BLK_FEAT_NOWAIT (stock 6.12)"

ktap_plan $((3 * ${#CASES[@]}))
cases
SIZE=64k
cases
if zram_attr_exists compressed_writeback; then
	backing packed
	cases
else
	ktap_skip_n "${#CASES[@]}" "packed" "no compressed_writeback attribute"
fi
ktap_finish
