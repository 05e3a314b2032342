#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback before init fails with EINVAL although the backing device is
# set; the same write works once the device is initialized.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
zram_wb_attach "$NULLB"
wb=$ZRAM_SYS/writeback

before() { ktap_check "writeback before init -> EINVAL" expect_errno EINVAL "$wb" idle; }
after() {
	zram_init 16M || ktap_bail "cannot set disksize"
	zram_fill_pages "$ZRAM_DEV" 0 8 text
	echo all >"$ZRAM_SYS/idle"
	ktap_check "the same writeback after init succeeds" expect_errno OK "$wb" idle
}
count() { ktap_eq "it wrote back the 8 idle slots" "$(bd_count)" 8; }

ktap_run_cases before after count
