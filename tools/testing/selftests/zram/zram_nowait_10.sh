#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# preadv2(RWF_NOWAIT) of slots written back to a backing device without
# nowait support (dm-delay with no delay over null_blk, which refuses
# RWF_NOWAIT itself): each read returns EAGAIN or its data, never a short
# count or EIO; an EAGAIN leaves the slot as it was (debugfs block_state)
# and counts nowhere: the disk's stat (/sys/block/zramN/stat) counts only
# the reads served, as the blocking reads that then verify every page
# are counted. The RWF_NOWAIT checks skip where
# zram refuses RWF_NOWAIT (stock 6.12, see zram_nowait_09).

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_pv_init
zram_pv_nonowait_dev
zram_pv_wb_setup "$DM"
zram_pv_probe 256k

setup() { ktap_eq "setup: pages 0-63 on the backing device" "$(bd_count)" 64; }
dm_probe() {
	if [ "$PV_DM_ERR" != 95 ]; then
		ktap_skip "backing device without nowait: probe" \
			"dm-delay accepted RWF_NOWAIT (error $PV_DM_ERR): it supports nowait here"
	else
		ktap_ok "backing device without nowait: probe (dm-delay refuses RWF_NOWAIT)"
	fi
}
eagain_or_data() {
	local desc="backing device without nowait: EAGAIN or data, no EIO, no short read"

	state_before=''
	zram_pv_need_nowait "$desc" || return
	if [ -r "$(zram_block_state_file)" ]; then
		state_before=$(zram_slot_state 0)
	fi
	reads_before=$(bd_reads)
	stat_before=$(read_stat)
	zram_pv_nowait_read "$ZRAM_DEV" wb 0 256k
	stat_after=$(read_stat)
	ktap_info "backing reads: $(($(bd_reads) - reads_before))"
	ktap_check "$desc" zram_pv_nowait_ok 64
}
untouched() {
	local desc="backing device without nowait: EAGAIN leaves the slot untouched"

	if ! zram_pv_need_nowait "$desc"; then
		:
	elif [ -z "$state_before" ]; then
		ktap_skip "$desc" "no debugfs block_state"
	elif [ "$PV_EAGAINS" = 0 ]; then
		ktap_skip "$desc" "no read got EAGAIN"
	else
		ktap_eq "$desc" "$(zram_slot_state 0)" "$state_before"
	fi
}
# read_stat: read I/Os and read sectors of the disk's stat.
read_stat() {
	zram_counters stat:1 stat:3
}

counted() {
	local desc="backing device without nowait: the disk's stat counts only the reads served"
	local served

	zram_pv_need_nowait "$desc" || return
	served=$((PV_VERIFIED - PV_EAGAINS))
	ktap_eq "$desc" "$(zram_grew "$stat_before" "$stat_after")" \
		"$served $((served * 8))"
}
blocking() {
	blocking_before=$(read_stat)
	ktap_check "blocking reads verify all pages" zram_pv_verify "$ZRAM_DEV" wb 0 256k
	blocking_after=$(read_stat)
}
blocking_counted() {
	ktap_eq "the disk's stat counts each of the 64 blocking reads" \
		"$(zram_grew "$blocking_before" "$blocking_after")" "64 512"
}

ktap_run_cases setup dm_probe eagain_or_data untouched counted blocking \
	blocking_counted
