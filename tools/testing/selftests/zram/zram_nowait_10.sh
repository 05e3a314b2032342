#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# preadv2(RWF_NOWAIT) of slots written back to a backing device without
# nowait support (dm-delay with no delay over null_blk, which refuses
# RWF_NOWAIT itself): each read returns EAGAIN or its data, never a short
# count or EIO; an EAGAIN leaves the slot as it was (debugfs block_state);
# blocking reads then verify every page. The RWF_NOWAIT checks skip where
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

# slot_state N: debugfs block_state line of slot N (access time, flags).
slot_state() {
	awk -v n="$1" '$1 == n' "$(zram_block_state_file)"
}

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
		state_before=$(slot_state 0)
	fi
	reads_before=$(bd_reads)
	zram_pv_nowait_read "$ZRAM_DEV" wb 0 256k
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
		ktap_eq "$desc" "$(slot_state 0)" "$state_before"
	fi
}
blocking() {
	ktap_check "blocking reads verify all pages" zram_pv_verify "$ZRAM_DEV" wb 0 256k
}

ktap_run_cases setup dm_probe eagain_or_data untouched blocking
