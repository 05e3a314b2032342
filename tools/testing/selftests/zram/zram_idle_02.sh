#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An idle age at or beyond the uptime marks nothing: no slot has been
# stored that long. Ages whose conversion to nanoseconds would wrap
# (18446744074 s, 2^64-1 s) must not wrap into "everything is idle".
# Seen through debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING).

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

ktap_plan 4
for age in $((uptime_s + 1)) 100000000 18446744074 18446744073709551615; do
	echo all >"$ZRAM_SYS/idle"
	echo "$age" >"$ZRAM_SYS/idle"
	ktap_eq "idle $age (uptime ${uptime_s}s) leaves no slot idle" \
		"$(idle_count)" 0
done
ktap_finish
