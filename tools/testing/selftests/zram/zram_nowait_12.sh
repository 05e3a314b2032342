#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# preadv2(RWF_NOWAIT) of slots written back to a backing device with
# nowait support (null_blk) returns their data: no EAGAIN, no short read,
# every block verifies. Skips where zram refuses RWF_NOWAIT (stock 6.12,
# see zram_nowait_09).

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_ready 16
zram_pv_init
zram_pv_probe 0
[ "$PV_NOWAIT" = 1 ] ||
	ktap_skip_all "RWF_NOWAIT -> EOPNOTSUPP: no BLK_FEAT_NOWAIT (stock 6.12)"
zram_pv_job "$ZRAM_DEV" wb2 0 256k || ktap_bail "cannot write pages 0-63"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"

setup() { ktap_eq "setup: pages 0-63 on the backing device" "$(bd_count)" 64; }
nowait_read() {
	zram_pv_nowait_read "$ZRAM_DEV" wb2 0 256k
	ktap_check "backing device with nowait: RWF_NOWAIT read returns the data" \
		zram_pv_all_data 64
}
blocking() {
	ktap_check "blocking reads verify all pages" zram_pv_verify "$ZRAM_DEV" wb2 0 256k
}

ktap_run_cases setup nowait_read blocking
