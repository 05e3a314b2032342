#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reset takes a true value only: writing 0 fails with EINVAL and the
# device stays initialized.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"

zero() { ktap_check "reset 0 -> EINVAL" expect_errno EINVAL "$ZRAM_SYS/reset" 0; }
still() {
	ktap_eq "initstate still 1 after reset 0" "$(cat "$ZRAM_SYS/initstate")" 1
}

ktap_run_cases zero still
