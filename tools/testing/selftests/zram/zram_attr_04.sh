#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# algorithm_params sets the parameters the compressor is created with, at
# init: once the device is initialized it is refused with EBUSY, as
# comp_algorithm is (newer upstream; 6.12 accepts and ignores it), and
# accepted again after reset.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_attr_exists algorithm_params || ktap_skip_all "no algorithm_params"
read -r -a algs <"$ZRAM_SYS/comp_algorithm"
alg=
for a in "${algs[@]}"; do
	case $a in \[*) alg=${a//[\[\]]/} ;; esac
done

ktap_plan 4
ktap_check "before init: level=1 accepted" \
	expect_errno OK "$ZRAM_SYS/algorithm_params" "level=1"
zram_init 16M || ktap_bail "cannot set disksize"
zram_check_input_rows "after init: " \
	"algorithm_params|level=1|EBUSY" \
	"algorithm_params|algo=$alg level=1|EBUSY"
echo 1 >"$ZRAM_SYS/reset" || ktap_bail "cannot reset"
ktap_check "after reset: level=1 accepted again" \
	expect_errno OK "$ZRAM_SYS/algorithm_params" "level=1"
ktap_finish
