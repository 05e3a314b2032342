#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The idle age is a u32 of seconds, as upstream: an age at or beyond the
# uptime is accepted and changes nothing (no slot has been stored that
# long), even on a device that is not initialized; an age above
# 4294967295 is EINVAL and changes nothing either. Other input before
# initialization is EINVAL. Seen through debugfs block_state
# (CONFIG_ZRAM_MEMORY_TRACKING).

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
[ -r "$(zram_block_state_file)" ] ||
	ktap_skip_all "no debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING)"
zram_fill_pages "$ZRAM_DEV" 0 32 text

idle_count() { zram_block_state_count '^...i'; }
read -r up _ </proc/uptime
uptime_s=${up%.*}

ktap_plan 9
for age in $((uptime_s + 1)) 100000000 4294967295; do
	echo all >"$ZRAM_SYS/idle"
	ktap_eq "idle $age (uptime ${uptime_s}s): OK, the 32 marks stay" \
		"$(zram_write "$ZRAM_SYS/idle" "$age") $(idle_count)" "OK 32"
done
for age in 4294967296 18446744074 18446744073709551615; do
	echo all >"$ZRAM_SYS/idle"
	ktap_eq "idle $age: EINVAL, the 32 marks stay" \
		"$(zram_write "$ZRAM_SYS/idle" "$age") $(idle_count)" "EINVAL 32"
done
echo 1 >"$ZRAM_SYS/reset"
zram_check_input_rows "not initialized: " "idle|100000000|OK" "idle|0|EINVAL" \
	"idle|all|EINVAL"
ktap_finish
