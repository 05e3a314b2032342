#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The queue's nowait attribute, where the kernel has one: 1 for our driver
# (BLK_FEAT_NOWAIT is always set), 0 for stock 6.12 zram. Kernel 6.12 has no
# such attribute (nowait support is probed by zram_nowait_09.sh instead),
# so there this test skips.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
attr=$ZRAM_SYS/queue/nowait
[ -e "$attr" ] ||
	ktap_skip_all "no queue/nowait attribute in this kernel ($(uname -r));" \
		"see zram_nowait_09.sh"

ktap_plan 1
want=1
[ "${ZRAM_DRIVER:-stock}" = stock ] && want=0
ktap_eq "queue/nowait of a ${ZRAM_DRIVER:-stock} zram device" "$(cat "$attr")" "$want"
ktap_finish
