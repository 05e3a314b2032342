#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side runner: (re)load the zram driver, run every test, print each
# test's KTAP output and one summary line
#   zram selftests: N passed, N failed, N skipped
# Exit status 0 when nothing failed, 1 otherwise, 4 when every test skipped.
#
# Usage: run_all.sh [stock|ours] [TEST...]
#   The driver may also come from ZRAM_DRIVER (default stock). "ours" loads
#   $ZRAM_KO (default <repo>/drivers/block/zram/zram.ko). Without TEST
#   arguments every test of the Makefile's TEST_PROGS runs.
#   ZRAM_TEST_TIMEOUT: seconds per test (default: settings' timeout).

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
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
	[zram_idle_02.sh]="stock bug: an idle age past 2^64 ns wraps and marks every slot idle"
	[zram_wb_07.sh]="6.12: stats readers wait behind a reset queued behind a writeback"
	[zram_algo_05.sh]="6.12 clears the parameters before it reads dict=: a bad one drops level="
	[zram_algo_06.sh]="6.12 fails every lz4/lz4hc write with a dictionary longer than 64 KiB"
	[zram_dio_01.sh]="stock bug: O_DIRECT writes from unaligned buffers store shifted data"
)

# kernel log lines that fail the test that adds them
warn_re='WARNING:|BUG:|Oops|general protection|list_(add|del) corruption'

# kernel warnings so far, to blame the test that adds one
kernel_warnings() {
	dmesg 2>/dev/null | grep -c -E "$warn_re"
}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(sed -n 's/^[[:space:]]*\(zram_[a-z]*_[0-9]*\.sh\).*/\1/p' \
		"$here/Makefile")
fi

echo "TAP version 13"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP must be run as root"
	echo "zram selftests: 0 passed, 0 failed, ${#tests[@]} skipped"
	exit 4
fi
say "driver: $driver"
if ! load_driver; then
	echo "1..0 # SKIP cannot load the $driver zram driver"
	echo "zram selftests: 0 passed, 0 failed, ${#tests[@]} skipped"
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
for t in "${tests[@]}"; do
	n=$((n + 1))
	warn0=$(kernel_warnings)
	start=$(date +%s)
	timeout "$timeout_s" "$here/$t" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	if [ "$(kernel_warnings)" -gt "$warn0" ]; then
		say "$t: new kernel warnings:"
		dmesg | grep -E -A5 "$warn_re" |
			tail -30 | sed 's/^/# /'
		[ "$rc" = 0 ] || [ "$rc" = 4 ] && rc=1
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

echo "# totals: pass:$pass fail:$fail xfail:$xfail skip:$skip"
if [ "$xfail" -gt 0 ]; then
	say "$xfail expected failure(s) of the $driver driver, see README"
fi
echo "zram selftests: $pass passed, $fail failed, $skip skipped"
if [ "$fail" -gt 0 ]; then
	exit 1
fi
if [ "$pass" -eq 0 ]; then
	exit 4
fi
exit 0
