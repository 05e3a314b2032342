#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side, for "make check": run the zram selftests in the test VM against
# the stock zram.ko with the project's runner (run_all.sh, vm-run.sh), and
# against ours the way kernel CI runs them: installed from a kernel tree and
# run by the kernel's run_kselftest.sh (tools/testing/vm/kselftest.sh).
# The two runs boot side by side; their logs are printed after both ended,
# then both summaries and one total. Exits non-zero when either run failed.
#
# Usage: tools/testing/vm/vm-check.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   ZRAM="stock ours"    the runs (default both)
#   TESTS="zram_x.sh ..." only these tests, in both runs
#   KERNEL=NAME          the kernel the VMs boot: debian (Debian's 7.3,
#                        default), debian-6.12 or debug
#   TEST_TIMEOUT=SECONDS per test (default: the suite's settings file)
#   OUT=DIR              results folder (default .cache/results/check-vm):
#                        DRIVER.log, and DRIVER/ the VM's results
#   VM_RUN_ARGS          more options for run.sh (e.g. "--quiet")

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

vm_options ZRAM TESTS KERNEL TEST_TIMEOUT OUT VM_RUN_ARGS -- "$@"
logdir=${OUT:-$results_dir/check-vm}
mkdir -p "$logdir"
read -r -a drivers <<<"${ZRAM:-stock ours}"
vm_check_drivers "${drivers[@]}"

# built once here, before the two VMs that share them start side by side
make -s -C "$root/tools/testing/selftests/zram" all || exit 1
vm_kernel
"$here/mkinitramfs.sh" "$vm_initramfs" || exit 1

# run_driver DRIVER: the suite on DRIVER, its output in $logdir/DRIVER.log,
# the VM's results folder $logdir/DRIVER/
run_driver() {
	local driver=$1 run

	case $driver in
	stock) run=("$here/vm-run.sh" ZRAM=stock) ;;
	ours) run=("$here/kselftest.sh" ZRAM=ours) ;;
	esac
	rm -rf "${logdir:?}/$driver"
	run+=("OUT=$logdir/$driver")
	"${run[@]}" >"$logdir/$driver.log" 2>&1
	echo $? >"$logdir/$driver.rc"
}

# the two VMs run side by side: each mostly keeps one host CPU busy
for driver in "${drivers[@]}"; do
	echo "[selftests] $driver: running in the VM (log: $logdir/$driver.log)"
	run_driver "$driver" &
done
wait

rc=0
pass=0
fail=0
skip=0
asserts=0
summaries=()
for driver in "${drivers[@]}"; do
	log=$logdir/$driver.log
	sed "s/^/[$driver] /" "$log"
	[ "$(cat "$logdir/$driver.rc")" = 0 ] || rc=1
	# run_all.sh's summary is on the VM's console, which the log lacks
	# when VM_RUN_ARGS has --quiet
	summary=$(cat "$log" "$logdir/$driver/console.log" 2>/dev/null |
		grep -a -o -E 'zram (selftests|kselftest)[^:]*: [0-9]+ passed.*' |
		tail -1 | tr -d '\r')
	if [ -z "$summary" ]; then
		echo "[selftests] $driver: no summary line (the VM run failed)"
		rc=1
		fail=$((fail + 1))
		continue
	fi
	read -r p f s < <(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' <<<"$summary")
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	# the tests' KTAP result lines, run_all.sh's or kselftest.sh's count
	a=$(vm_assertions "$log" "$logdir/$driver/console.log")
	asserts=$((asserts + ${a:-0}))
	summaries+=("$driver: $summary; ${a:-no} assertions")
done

echo
echo "[selftests] summaries"
printf '  %s\n' "${summaries[@]}"
[ "$fail" -eq 0 ] || rc=1
echo "selftests: $pass passed, $fail failed, $skip skipped; $asserts assertions"
vm_tier_counts $((pass + fail + skip)) "$asserts"
exit "$rc"
