#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 64 KiB preadv2(RWF_NOWAIT) reads that span slots in RAM and slots
# written back to a backing device without nowait support (dm-delay over
# null_blk) each return all their data or EAGAIN, never a short count or
# EIO; blocking reads then verify every page. The RWF_NOWAIT check skips
# where zram refuses RWF_NOWAIT (stock 6.12, see zram_nowait_09).

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
multi_page() {
	local desc="multi-page RWF_NOWAIT reads over RAM and written-back slots"

	zram_pv_need_nowait "$desc" || return
	zram_pv_nowait_read "$ZRAM_DEV" wb 0 512k --bs=64k
	ktap_check "$desc" zram_pv_nowait_ok 8
}
blocking() {
	ktap_check "blocking reads verify all pages" zram_pv_verify "$ZRAM_DEV" wb 0 256k
}

ktap_run_cases setup multi_page blocking
