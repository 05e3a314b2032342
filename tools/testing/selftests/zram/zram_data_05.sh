#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A long discard gives the CPU up. With the kernel's preemption mode set
# to "none" (kernel code yields the CPU only where it reschedules; 7.x on
# x86 has no such mode, the test skips there), zram_holdcpu discards all
# of a device whose every slot holds a page with one BLKDISCARD, bound to
# CPU 0 beside a real-time task on that CPU that wakes every millisecond.
# A driver that frees every slot of the discard bio in one loop keeps the
# task waiting for all of it; here its longest wait stays under half the
# discard's time. The slots are same-filled (zeros), which are cheap to
# write; the device is smaller on a slow kernel, whose slower frees keep
# the discard as long.

. "$(dirname "$0")/zram_lib.sh"

holdcpu=$(dirname "$0")/zram_holdcpu
preempt=/sys/kernel/debug/sched/preempt
MIB=$(zram_scaled 4096 1024)
MIN_US=50000	# a shorter discard cannot tell a 1 ms task's waits apart

zram_require_basic
zram_require_cmd dd
[ -x "$holdcpu" ] ||
	ktap_skip_all "zram_holdcpu is not built (make -C $(dirname "$0"))"
[ -w "$preempt" ] ||
	ktap_skip_all "no preemption mode to set (CONFIG_PREEMPT_DYNAMIC, debugfs)"
mode=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$preempt")
[ -n "$mode" ] || ktap_skip_all "cannot read the preemption mode"
echo none >"$preempt" 2>/dev/null ||
	ktap_skip_all "cannot set the preemption mode to none"
# shellcheck disable=SC2317 # called through zram_defer
restore_preempt() {
	echo "$mode" >"$preempt"
}
zram_defer restore_preempt
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init "${MIB}M" || ktap_bail "cannot set disksize"

ktap_plan 3

dd if=/dev/zero of="$ZRAM_DEV" bs=1M count="$MIB" oflag=direct 2>/dev/null
ktap_eq "every slot holds a same-filled page" \
	"$(zram_field mm_stat 6)" $((MIB * 256))
out=$("$holdcpu" 0 "$ZRAM_DEV")
ktap_info "discard of $MIB MiB: $out"
took=$(sed -n 's/.*discard_us=\([0-9]*\).*/\1/p' <<<"$out")
gap=$(sed -n 's/.*max_gap_us=\([0-9]*\).*/\1/p' <<<"$out")
err=$(sed -n 's/.*error=\([0-9]*\).*/\1/p' <<<"$out")
ktap_eq "the discard succeeded and freed every slot" \
	"$err $(zram_field mm_stat 6) $(zram_field mm_stat 1)" "0 0 0"
desc="the real-time task waited at most half the discard"
if [ -z "$took" ] || [ -z "$gap" ]; then
	ktap_not_ok "$desc"
elif [ "$took" -lt "$MIN_US" ]; then
	ktap_skip "$desc" "the discard took $took us, too short to tell"
else
	ktap_check "$desc ($gap of $took us)" test $((gap * 2)) -le "$took"
fi
ktap_finish
