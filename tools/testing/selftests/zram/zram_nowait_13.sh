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
# the read returns its data. The same again with compressed_writeback
# on, where the slot is a packed object and the read that is issued again
# is of the block holding it, into the packed read's buffer.
# Skips where zram refuses RWF_NOWAIT (stock 6.12, see zram_nowait_09);
# the packed pass skips without compressed_writeback.

# shellcheck disable=SC2317 # the cases run through CASES
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_dm
zram_pv_init

trace=/sys/kernel/tracing
[ -d "$trace/events" ] || mount -t tracefs nodev "$trace" 2>/dev/null
event=$trace/events/block/block_bio_queue
[ -w "$event/filter" ] &&
	zram_defer sh -c "echo 0 >$event/enable; echo 0 >$event/filter"

# backing KIND: a dm-linear over a timer-completing null_blk (sets DM,
# DM_NAME) as the backing device of a fresh zram device
# (zram_pv_wb_setup: KIND page or packed); sets KIND. The block_bio_queue
# tracepoint is filtered on the dm device; sets traced when it can be used.
backing() {
	local dev

	zram_nullb 16 irqmode=2 completion_nsec=20000 ||
		ktap_skip_all "cannot create a null_blk with timer completions"
	zram_dm lin "0 $(zram_sectors "$NULLB") linear $NULLB 0" ||
		ktap_skip_all "cannot create a dm-linear device"
	zram_pv_wb_setup "$DM" "$1"
	KIND=$1
	dev=$(dmsetup info -c --noheadings -o major,minor "$DM_NAME" | tr -d " ")
	traced=
	if [ -w "$event/filter" ] && [ -n "$dev" ] &&
		echo "dev == $(((${dev%:*} << 20) | ${dev#*:}))" >"$event/filter"; then
		traced=1
	fi
}

# written_back: pages 0-63 are on the backing device, as 64 blocks or
# (KIND packed) 64 packed objects.
written_back() {
	if [ "$KIND" = packed ]; then
		zram_wb_stat packed_objects
	else
		bd_count
	fi
}

reader=
suspended() {
	ktap_eq "$KIND: setup: pages 0-63 on the backing device" \
		"$(written_back)" 64
	dmsetup suspend "$DM_NAME" || ktap_bail "cannot suspend $DM_NAME"
	zram_defer dmsetup resume "$DM_NAME"
	if [ -n "$traced" ]; then
		echo >"$trace/trace"
		echo 1 >"$event/enable"
	fi
	zram_pv_job "$ZRAM_DEV" wb 0 4k --rw=read --nowait=1 --do_verify=1 &
	reader=$!
}
# queued: bios the dm device has seen since the read started
queued() {
	grep -c block_bio_queue "$trace/trace"
}
# The read has reached the dm device once the tracepoint saw its first bio
# (fio may take seconds to start on a loaded debug kernel); 2 s later it
# must still wait. Without the tracepoint, 10 s after fio was started.
waits() {
	local i

	if [ -n "$traced" ]; then
		for ((i = 0; i < 600; i++)); do
			[ "$(queued)" -ge 1 ] && break
			kill -0 "$reader" 2>/dev/null || break
			sleep 0.2
		done
		sleep 2
	else
		sleep 10
	fi
	ktap_check "$KIND: the RWF_NOWAIT read waits while the device is suspended" \
		kill -0 "$reader"
}
issued_once() {
	local n

	if [ -z "$traced" ]; then
		ktap_skip "$KIND: its backing read is issued twice: nowait, then blocking" \
			"no block_bio_queue tracepoint"
		return
	fi
	echo 0 >"$event/enable"
	n=$(queued)
	ktap_info "$KIND: backing reads issued to the suspended device: $n"
	ktap_eq "$KIND: its backing read is issued twice: nowait, then blocking" "$n" 2
}
resumed() {
	dmsetup resume "$DM_NAME"
	ktap_check "$KIND: after resume the read returns its data" wait "$reader"
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

ktap_plan $((2 * ${#CASES[@]}))
cases
if zram_attr_exists compressed_writeback; then
	backing packed
	cases
else
	ktap_skip_n "${#CASES[@]}" "packed" "no compressed_writeback attribute"
fi
ktap_finish
