#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side runner: (re)load the zram driver, run every test, print each
# test's KTAP output and the summary lines
#   zram selftests: N passed, N failed, N skipped
#   zram assertions: N (N ok, N not ok)
#   zram kernel reports on DRIVER: N
# (assertions: the KTAP result lines the tests printed, skips among the ok).
# Exit status 0 when nothing failed, 1 otherwise, 4 when every test skipped.
#
# After every test the new dmesg lines are scanned for kernel reports
# (zram_dmesg.sh: WARNING, BUG, Oops, lockdep, KASAN, sleeping in atomic
# context, hung task, soft lockup...). Where kmemleak runs, the module is
# unloaded after the last test and one kmemleak scan reports the suspected
# leaks allocated by zram in the whole run (a leaked object stays
# unreferenced, and its backtrace names the allocation site). On ours a
# report fails the test; on stock it is printed as stock's and counted,
# not failed.
#
# Usage: run_all.sh [stock|ours] [TEST...]
#        run_all.sh --list [TEST...]  the tests it would run, one per line
#   The driver may also come from ZRAM_DRIVER (default stock). "ours" loads
#   $ZRAM_KO (default <repo>/drivers/block/zram/zram.ko). Without TEST
#   arguments every test of the Makefile's TEST_PROGS runs.
#   ZRAM_TEST_TIMEOUT: seconds per test (default: settings' timeout).
#   ZRAM_SPLAT_DIR: a folder where each report's dmesg (and leak records)
#   is saved as DRIVER-TEST.txt.
#   ZRAM_KMEMLEAK_WAIT: seconds to wait before each kmemleak scan (default
#   5: kmemleak does not report objects younger than 5 seconds).
#   ZRAM_KMEMLEAK_EACH=1: also scan after every test, to name the test
#   that leaked (a scan costs about 15 s under TCG on the debug kernel).
#   ZRAM_TEST_SCALE=N: the tests whose assertions do not depend on the
#   volume of their data, or on how often they repeat a race, move 1/N
#   of it (zram_scaled in zram_data.sh: the io_uring verify cycles of
#   zram_nowait_05, zram_packed_03 and zram_nowait_06 and their device,
#   the swap workloads of zram_swap_01 and zram_swap_02 (and the latter's
#   writeback budgets), the regions of zram_inject_03 and zram_inject_05,
#   the devices of zram_data_01 and zram_nowait_01, the file tree of
#   zram_data_02, the rounds of zram_hotremove_01 and zram_inject_06, the
#   passes of zram_packed_13).
#   Default 1.
#   ZRAM_URING_SIZE: bytes per io_uring verify cycle (fio syntax, default
#   48M scaled by ZRAM_TEST_SCALE).
#   ZRAM_KMEMLEAK_CANARY: the kernel's kmemleak-test.ko built for this
#   kernel; loaded after the last scan of zram, its planted leaks must be
#   reported, or the run fails (an empty scan proves nothing when
#   kmemleak cannot see leaks).
#   ZRAM_SLOT_LOCK_CANARY: tools/testing/slot-lock-canary's module built
#   for this kernel; on ours, loaded last, its misuse of the slot lock
#   must be reported, or the run fails.

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
# shellcheck source=zram_dmesg.sh
. "$here/zram_dmesg.sh"
list_only=0
if [ "${1:-}" = --list ]; then
	list_only=1
	shift
fi
driver=${ZRAM_DRIVER:-stock}
case ${1:-} in
stock | ours) driver=$1; shift ;;
esac
export ZRAM_DRIVER=$driver

timeout_s=${ZRAM_TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$here/settings" 2>/dev/null)}
timeout_s=${timeout_s:-600}

say() { echo "# run_all: $*"; }

# the harness's loader when present, else the same steps here
load_driver() {
	local loader=$root/tools/testing/vm/guest/zram-load.sh ko m

	if [ -x "$loader" ]; then
		"$loader" "$driver"
		return
	fi
	if [ -d /sys/module/zram ]; then
		rmmod zram || return 1
	fi
	case $driver in
	stock) modprobe zram num_devices=1 ;;
	ours)
		ko=${ZRAM_KO:-$root/drivers/block/zram/zram.ko}
		[ -e "$ko" ] || { say "$ko is not built"; return 1; }
		for m in $(modinfo -F depends "$ko" 2>/dev/null | tr , ' '); do
			modprobe "$m" >/dev/null 2>&1
		done
		insmod "$ko" num_devices=1
		;;
	*) say "unknown driver '$driver'"; return 1 ;;
	esac
}

# Tests that fail on the stock 6.12 zram.ko because they test a documented
# difference (see README): there a failure is reported as an expected one
# (KTAP "# TODO"), not counted as failed; a pass is a plain pass, since
# some of these check races that a run may not hit.
declare -A stock_xfail=(
	[zram_wb_06.sh]="stock bug: a read racing its block's reuse returns another slot's data"
	[zram_attr_03.sh]="stock bug: disksize 2^64-1 wraps to 0 (WARNING), mem_limit to unlimited"
	[zram_attr_04.sh]="6.12 accepts algorithm_params after init (newer upstream: EBUSY)"
	[zram_wb_07.sh]="6.12: stats readers wait behind a reset queued behind a writeback"
	[zram_algo_05.sh]="stock clears the parameters before reading dict=: a bad one drops level="
	[zram_bdev_07.sh]="stock reads for partial I/O in a worker, charged to the root cgroup"
	[zram_data_05.sh]="stock frees every slot of a discard bio without rescheduling"
	[zram_wb_22.sh]="stock writeback cannot be killed: it writes on to its end"
	[zram_wb_23.sh]="stock writes a bio per page; packed, overlapping ranges write 263 blocks"
	[zram_algo_06.sh]="6.12 fails every lz4/lz4hc write with a dictionary longer than 64 KiB"
	[zram_dio_01.sh]="stock bug: O_DIRECT writes from unaligned buffers store shifted data"
	[zram_recomp_02.sh]="6.12 takes an unknown recompress type= as every slot"
	[zram_recomp_08.sh]="6.12 refuses the second of writeback and recompress with EAGAIN"
	[zram_wb_25.sh]="stock reads a written-back slot at a time: a device read each"
)
# The same for stock 7.x (README: "Expected failures on stock 7.x"); a
# reason says "stock bug" where stock loses or mixes up data or blocks.
declare -A stock_xfail_7=(
	[zram_fault_02.sh]="stock bug: 7.x never uses freed blocks again"
	[zram_fault_03.sh]="stock bug: 7.x loses data when blocks fail among holes, and returns OK"
	[zram_packed_02.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_03.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_04.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_05.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_06.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_07.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_08.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_09.sh]="stock bug: as zram_wb_06, a read racing reuse gets other data"
	[zram_packed_11.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_12.sh]="7.x writes one compressed object per block (no packing)"
	[zram_packed_13.sh]="7.x writes one compressed object per block (no packing)"
	[zram_inject_09.sh]="7.x writes one compressed object per block (no packing)"
	[zram_recomp_01.sh]="stock bug: recomp_algorithm holds NUL bytes (offsets added twice)"
	[zram_recomp_05.sh]="7.x recompresses the largest objects first, not in index order"
	[zram_wb_19.sh]="7.x writes a slot named twice by page_index twice"
	[zram_wb_20.sh]="7.x writes a slot named twice twice"
	[zram_wb_24.sh]="7.x writeback bios are buffered writes: blk-wbt tracks and throttles them"
)
# Only on stock 6.12: the tests assert 7.x's ABI (README: "Expected
# failures on stock 6.12").
declare -A stock_xfail_6=(
	[zram_idle_01.sh]="6.12: idle AGE >= uptime clears every mark; ages in ns"
	[zram_idle_02.sh]="6.12 takes idle ages past 2^32-1 s and wraps them past 2^64 ns"
	[zram_attr_02.sh]="6.12 parses writeback input before it answers ENODEV"
	[zram_wb_08.sh]="6.12 fails with EIO when the limit is exhausted, eligible slot or not"
	[zram_algo_02.sh]="6.12 clamps levels, ignores unused parameters; dict= errno; no EBUSY"
)
case $(uname -r) in
7.*)
	for t in "${!stock_xfail_7[@]}"; do
		stock_xfail[$t]=${stock_xfail_7[$t]}
	done
	;;
6.*)
	for t in "${!stock_xfail_6[@]}"; do
		stock_xfail[$t]=${stock_xfail_6[$t]}
	done
	;;
esac

splats=0
splat_tests=()
leak_wait=${ZRAM_KMEMLEAK_WAIT:-5}
use_kmemleak=0
kmemleak_usable && use_kmemleak=1
each_scan=
zram_range=
[ "${ZRAM_KMEMLEAK_EACH:-0}" = 1 ] && each_scan=scan
work=$(mktemp -d /tmp/zram-run-all.XXXXXX)
trap 'rm -rf "$work"' EXIT

# check_reports NAME MARK [SCAN]: the kernel reports since MARK of test
# NAME, and with SCAN=scan the zram leaks a kmemleak scan finds. Prints
# them; returns 1 when there were any.
check_reports() {
	local name=$1 mark=$2 new=$work/new leaks=$work/leaks n lockdep_was

	dmesg_since "$mark" >"$new"
	if [ "$use_kmemleak" = 1 ] && [ "${3:-}" = scan ]; then
		sleep "$leak_wait"
		: >"$leaks"
		kmemleak_scan "$leaks" || say "$name: kmemleak scan failed"
		# shellcheck disable=SC2086 # zram_range is "LO HI" or empty
		kmemleak_zram_records "$leaks" $zram_range >>"$new"
		n=$(grep -c '^unreferenced object' "$leaks")
		# shellcheck disable=SC2086
		say "$name: kmemleak: $n suspected leaks, $(
			kmemleak_zram_records "$leaks" $zram_range |
				grep -c '^unreferenced object') by zram"
	fi
	n=$(splat_count "$new")
	[ "$n" -gt 0 ] || return 0
	splats=$((splats + n))
	splat_tests+=("$name")
	if [ "$driver" = stock ]; then
		say "$name: $n kernel report(s) on stock (stock's, not counted against ours):"
	else
		say "$name: $n kernel report(s):"
	fi
	splat_reports "$new" | sed 's/^/# /'
	if [ -n "${ZRAM_SPLAT_DIR:-}" ] && mkdir -p "$ZRAM_SPLAT_DIR"; then
		cp "$new" "$ZRAM_SPLAT_DIR/$driver-$name.txt"
	fi
	lockdep_was=$(grep -c 'turning off the locking correctness validator' "$new")
	[ "$lockdep_was" -gt 0 ] &&
		say "lockdep turned itself off: the tests after $name run without it"
	return 1
}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(sed -n 's/^[[:space:]]*\(zram_[a-z]*_[0-9]*\.sh\).*/\1/p' \
		"$here/Makefile")
fi
if [ "$list_only" = 1 ]; then
	printf '%s\n' "${tests[@]}"
	exit 0
fi

echo "TAP version 13"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP must be run as root"
	echo "zram selftests: 0 passed, 0 failed, ${#tests[@]} skipped"
	echo "zram assertions: 0 (0 ok, 0 not ok)"
	exit 4
fi
say "driver: $driver"
mark=$(dmesg_mark)
if ! load_driver; then
	echo "1..0 # SKIP cannot load the $driver zram driver"
	echo "zram selftests: 0 passed, 0 failed, ${#tests[@]} skipped"
	echo "zram assertions: 0 (0 ok, 0 not ok)"
	exit 4
fi
[ -n "$(cat /sys/module/zram/srcversion 2>/dev/null)" ] &&
	say "zram srcversion $(cat /sys/module/zram/srcversion)"

echo "1..${#tests[@]}"
pass=0
fail=0
skip=0
xfail=0
n=0
asserts_ok=0
asserts_not_ok=0
if ! check_reports driver-load "$mark" && [ "$driver" != stock ]; then
	fail=$((fail + 1))
fi
for t in "${tests[@]}"; do
	n=$((n + 1))
	mark=$(dmesg_mark)
	start=$(date +%s)
	# prefixed by "# ", its KTAP result lines counted into $work/counts
	timeout "$timeout_s" "$here/$t" 2>&1 | awk -v counts="$work/counts" '
		{ print "# " $0; fflush() }
		/^ok [0-9]+ / { ok++ }
		/^not ok [0-9]+ / { not_ok++ }
		END { print ok + 0, not_ok + 0 >counts }'
	rc=${PIPESTATUS[0]}
	read -r n_ok n_not_ok <"$work/counts"
	asserts_ok=$((asserts_ok + n_ok))
	asserts_not_ok=$((asserts_not_ok + n_not_ok))
	secs=$(($(date +%s) - start))
	if ! check_reports "$t" "$mark" "$each_scan" && [ "$driver" != stock ]; then
		fail=$((fail + 1))
		echo "not ok $n selftests: zram: $t # kernel report(s), exit=$rc"
		continue
	fi
	if [ "$driver" = stock ] && [ -n "${stock_xfail[$t]:-}" ] &&
		[ "$rc" != 0 ] && [ "$rc" != 4 ]; then
		xfail=$((xfail + 1))
		echo "not ok $n selftests: zram: $t # TODO ${stock_xfail[$t]}"
		continue
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: zram: $t (${secs}s)" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: zram: $t # SKIP" ;;
	124) fail=$((fail + 1)); echo "not ok $n selftests: zram: $t # TIMEOUT ${timeout_s}s" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: zram: $t # exit=$rc" ;;
	esac
done

# leaks that only show once the module is gone; their zram frames are
# then bare addresses, attributed by the range the module had
if [ "$use_kmemleak" = 1 ]; then
	mark=$(dmesg_mark)
	zram_range=$(module_range zram)
	if rmmod zram; then
		if ! check_reports module-unload "$mark" scan && [ "$driver" != stock ]; then
			fail=$((fail + 1))
		fi
	else
		say "cannot unload zram for the last kmemleak scan"
	fi
fi
# The canary comes last: some of its planted leaks are reported only
# minutes later, and their bare addresses can fall in zram's range (its
# /proc/modules base and size; module code is packed, so another
# module's code can lie inside), which would make them zram's.
if [ "$use_kmemleak" = 1 ] && [ -n "${ZRAM_KMEMLEAK_CANARY:-}" ]; then
	if kmemleak_canary "$ZRAM_KMEMLEAK_CANARY" "$work/canary"; then
		canary_leaks=$(grep -c '^unreferenced object' "$work/canary")
		say "kmemleak canary: $canary_leaks planted leaks reported"
	else
		say "kmemleak canary: the planted leaks of $ZRAM_KMEMLEAK_CANARY were not reported"
		fail=$((fail + 1))
	fi
fi

# The slot lock canary comes after everything: lockdep turns itself off
# after the first report it makes.
if [ "$driver" != stock ] && [ -n "${ZRAM_SLOT_LOCK_CANARY:-}" ]; then
	if slot_lock_canary "$ZRAM_SLOT_LOCK_CANARY"; then
		say "slot lock canary: sleeping under a slot lock" \
			"and two slot locks at once reported"
	else
		say "slot lock canary: the misuse of the slot lock by" \
			"$ZRAM_SLOT_LOCK_CANARY was not reported"
		fail=$((fail + 1))
	fi
fi

echo "# totals: pass:$pass fail:$fail xfail:$xfail skip:$skip"
if [ "$xfail" -gt 0 ]; then
	say "$xfail expected failure(s) of the $driver driver, see README"
fi
echo "zram selftests: $pass passed, $fail failed, $skip skipped"
echo "zram assertions: $((asserts_ok + asserts_not_ok)) ($asserts_ok ok, $asserts_not_ok not ok)"
echo "zram kernel reports on $driver: $splats${splat_tests[*]:+ (in ${splat_tests[*]})}"
if [ "$fail" -gt 0 ]; then
	exit 1
fi
if [ "$pass" -eq 0 ]; then
	exit 4
fi
exit 0
