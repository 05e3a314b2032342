#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# preadv2(RWF_NOWAIT) of slots stored in RAM (fio pvsync2 --nowait=1,
# O_DIRECT) returns their data: no EAGAIN, no short read, every block
# verifies. Stock 6.12 zram lacks BLK_FEAT_NOWAIT, so the block layer
# refuses RWF_NOWAIT with EOPNOTSUPP (probed; any other error fails), and
# the read check skips there.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_pv_init
zram_pv_job "$ZRAM_DEV" ram 0 256k || ktap_bail "cannot write pages 0-63"

probe() {
	zram_pv_probe 0
	if [ "$PV_NOWAIT" = -1 ]; then
		ktap_not_ok "RWF_NOWAIT probe: data or EOPNOTSUPP (got error '$PV_PROBE_ERR')"
	else
		ktap_ok "RWF_NOWAIT probe: data or EOPNOTSUPP (nowait support: $PV_NOWAIT)"
	fi
}
fio_checks() {
	ktap_check "read-verify of never-written pages fails (fio checks the data)" \
		zram_pv_verify_fails "$ZRAM_DEV" ram 1M 16k
}
nowait_ram() {
	zram_pv_need_nowait "RAM slots: RWF_NOWAIT read returns the data" || return
	zram_pv_nowait_read "$ZRAM_DEV" ram 0 256k
	ktap_check "RAM slots: RWF_NOWAIT read returns the data" zram_pv_all_data 64
}

ktap_run_cases probe fio_checks nowait_ram
