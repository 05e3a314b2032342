#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: everything on the debug kernel (lockdep, KASAN,
# kmemleak, fault injection; tools/kernel/build-debug.sh, cached in
# $ZRAM_KCACHE): the whole kselftest suite, fault-injection tests (zram_inject_*)
# and nowait tests included, on the stock zram.ko of that kernel and on
# ours built against it, and the main job on ours. After every test
# run_all.sh scans dmesg and kmemleak; the main job's boot is scanned
# whole. A kernel report fails the test on ours; on stock it is printed
# as stock's. Prints every lane's summary and "debug kernel: splats on
# ours: N", and the tests run (selftests and main jobs) and the
# assertions (the KTAP result lines of the selftests). Exit status 0 when
# every run passed and N is 0.
#
# Each driver's suite is split over SHARDS VMs (lanes) side by side, by
# each test's seconds in debug-costs.txt (longest first, onto the least
# loaded lane), each lane in its own boot with its own module load, dmesg
# and kmemleak scans. make check runs ours only, in two lanes, so that
# both host cores stay busy to the end; stock's suite on this kernel is
# make check-debug ZRAM="stock ours".
#
# Usage: tools/testing/vm/check-debug.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   ZRAM="stock ours"     the selftest runs (default both)
#   SHARDS=N              lanes (VMs) per driver's suite (default 1)
#   TESTS="zram_x.sh ..." only these selftests
#   TEST_TIMEOUT=SECONDS  per selftest (default 1800)
#   TIMEOUT=SECONDS       per VM boot (default 7200)
#   OUT=DIR               results folder (default .cache/results/check-debug)
#   CHECK_DEBUG_MAIN=ours|both|none  main job drivers (default ours)
#   CHECK_DEBUG_MAIN_MIB="SRC BIN"  the main job's data in MiB (default
#                         "20 6")
#   ZRAM_KMEMLEAK_EACH=1  a kmemleak scan after every test (names the
#                         test that leaked; slower)
#   The older names CHECK_DEBUG_DRIVERS, CHECK_DEBUG_TESTS,
#   CHECK_DEBUG_TEST_TIMEOUT and CHECK_DEBUG_VM_TIMEOUT still work in the
#   environment.
# Results: OUT/<driver>/ (console.log, dmesg.txt, reports.txt, splats/
# with each report's dmesg; OUT/<driver>.<lane>/ when SHARDS > 1) and
# OUT/main-<driver>/
# The tests whose assertions do not depend on the volume of their data,
# or on how often they repeat a race, move a third of it here
# (ZRAM_TEST_SCALE=3; run_all.sh names them): e.g. an 85 MiB device
# instead of 256 for the io_uring verify cycles, and in zram_nowait_05
# and zram_packed_03 8M a cycle (ZRAM_URING_SIZE) instead of 48M, the
# swap workloads of zram_swap_01 and zram_swap_02 32 and 21 MiB instead
# of 96 and 64, 33 rounds of zram_hotremove_01 instead of 100. The debug
# kernel is there to catch locking and memory faults, which do not need
# the volume. The Debian kernel's suite still runs them at full size.
# The main job copies 26 MiB here (CHECK_DEBUG_MAIN_MIB="20 6": sources,
# compressed modules) instead of make run's 220 MiB: the same file types
# and paths (small and large files, huge and packed slots, writeback of
# all of them, verify), at an eighth of the copy time.
# Upstream's zram01.sh fills its file system with one dd per KiB (1900 of
# them): each a new process, slow on this kernel, so each upstream script
# gets 900 s here (ZRAM_UPSTREAM_TIMEOUT) instead of 300.

set -uo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vm_options ZRAM TESTS SHARDS TEST_TIMEOUT TIMEOUT OUT CHECK_DEBUG_MAIN \
	CHECK_DEBUG_MAIN_MIB ZRAM_KMEMLEAK_EACH -- "$@"
export ZRAM_KERNEL=debug
results=${OUT:-$results_dir/check-debug}
main_drivers=${CHECK_DEBUG_MAIN:-ours}
read -r main_src_mib main_bin_mib <<<"${CHECK_DEBUG_MAIN_MIB:-20 6}"
read -r -a tests <<<"${TESTS:-${CHECK_DEBUG_TESTS:-}}"
read -r -a drivers <<<"${ZRAM:-${CHECK_DEBUG_DRIVERS:-stock ours}}"
shards=${SHARDS:-1}
[[ $shards =~ ^[1-9][0-9]*$ ]] || vm_die "SHARDS must be a positive number"
# the tests to split into lanes, as run_all.sh lists them (all of them
# when no TESTS are named)
mapfile -t tests < <("$repo_dir/tools/testing/selftests/zram/run_all.sh" --list "${tests[@]}")
[ "${#tests[@]}" -gt 0 ] || vm_die "no selftests to run"
[ "$shards" -le "${#tests[@]}" ] || shards=${#tests[@]}
test_timeout=${TEST_TIMEOUT:-${CHECK_DEBUG_TEST_TIMEOUT:-1800}}
vm_timeout=${TIMEOUT:-${CHECK_DEBUG_VM_TIMEOUT:-7200}}
case $main_drivers in
ours) main_drivers=(ours) ;;
both) main_drivers=(stock ours) ;;
none) main_drivers=() ;;
*) vm_die "CHECK_DEBUG_MAIN must be ours, both or none" ;;
esac
vm_check_drivers "${drivers[@]}"

log() { printf '[check-debug] %s\n' "$*"; }

t0=$(date +%s)
"$repo_dir/tools/build/module.sh" || vm_die "cannot build zram.ko for the debug kernel"
vm_kernel
log "debug kernel $KVER ($kernel_root), build: $(tail -1 "$kernel_root/build-time" 2>/dev/null)"

# built once here, before the VMs that share it start side by side
"$vm_dir/mkinitramfs.sh" "$vm_initramfs" || vm_die "cannot build the initramfs"
canary=$("$repo_dir/tools/kernel/build-kmemleak-test.sh" | tail -1) ||
	vm_die "cannot build the kmemleak canary module"
canary=/repo/${canary#"$repo_dir"/}
lock_canary=$("$repo_dir/tools/kernel/build-slot-lock-canary.sh" | tail -1) ||
	vm_die "cannot build the slot lock canary module"
lock_canary=/repo/${lock_canary#"$repo_dir"/}

# Lanes by cost: the tests sorted by their seconds in debug-costs.txt
# (longest first), each given to the lane with the least seconds so far.
# When a main job follows, lane 0 starts with its seconds (main-job in the
# table, once per main driver): the main job runs after the first lane to
# end, so that lane gets that much less of the suite and the main job
# ends with the other lanes.
lane_of=()
assign_lanes() {
	local -A cost=()
	local -a load=()
	local name secs k best i

	while read -r name secs; do
		[[ $name == \#* || -z $name ]] || cost[$name]=$secs
	done <"$vm_dir/debug-costs.txt"
	for ((k = 0; k < shards; k++)); do
		load[k]=0
	done
	[ "$shards" = 1 ] ||
		load[0]=$((${#main_drivers[@]} * ${cost[main-job]:-0}))
	while read -r secs i; do
		best=0
		for ((k = 1; k < shards; k++)); do
			[ "${load[k]}" -ge "${load[best]}" ] || best=$k
		done
		lane_of[i]=$best
		load[best]=$((load[best] + secs))
	done < <(for i in "${!tests[@]}"; do
		echo "${cost[${tests[i]}]:-20} $i"
	done | sort -k1,1nr -k2,2n)
	[ "$shards" = 1 ] ||
		log "lanes by cost: ${load[*]} s${main_drivers[0]:+ (lane 0 with the main jobs)}"
}

# lane_tests K: the tests of lane K (0 .. shards - 1), one per line, in
# the order of the list
lane_tests() {
	local i

	for i in "${!tests[@]}"; do
		[ "${lane_of[i]}" != "$1" ] || echo "${tests[i]}"
	done
}

# run_suite DRIVER LANE K: the tests of lane K on DRIVER in one boot,
# results in $results/LANE (exit status in its suite-rc, wall seconds in
# suite-secs). run_all.sh unloads zram and scans for leaks after the last
# test, so the init's own final scan is skipped (zkmemleak=0). 2 GiB of
# guest memory, not 4: the scaled tests fit in it, and a kmemleak scan
# (it reads every struct page) and the boot take time in proportion.
run_suite() {
	local driver=$1 out=$results/$2 start lane_list=()

	mapfile -t lane_list < <(lane_tests "$3")
	start=$(date +%s)
	"$vm_dir/run.sh" --quiet --out "$out" --timeout "$vm_timeout" \
		--mem 2G --append zkmemleak=0 \
		--env ZRAM_SPLAT_DIR=/out/splats --env "ZRAM_TEST_TIMEOUT=$test_timeout" \
		--env "ZRAM_KMEMLEAK_CANARY=$canary" \
		--env "ZRAM_SLOT_LOCK_CANARY=$lock_canary" \
		--env "ZRAM_KMEMLEAK_EACH=${ZRAM_KMEMLEAK_EACH:-0}" \
		--env ZRAM_TEST_SCALE=3 --env ZRAM_URING_SIZE=8M \
		--env ZRAM_UPSTREAM_TIMEOUT=900 \
		--env ZRAM_UPSTREAM_DIR=/repo/.cache/linux-source/tools/testing/selftests/zram \
		-- /repo/tools/testing/vm/guest/from-tmpfs.sh \
		/repo/tools/testing/selftests/zram/run_all.sh "$driver" "${lane_list[@]}" \
		>"$out/run.log" 2>&1
	echo $? >"$out/suite-rc"
	echo $(($(date +%s) - start)) >"$out/suite-secs"
}

# run_main DRIVER: the main job on DRIVER, results in $results/main-DRIVER
# (exit status in main-rc, wall seconds in main-secs).
run_main() {
	local driver=$1 out=$results/main-$1 start

	rm -rf "$out"
	mkdir -p "$out"
	log "$driver: main job on the debug kernel (log: $out/run.log)"
	start=$(date +%s)
	"$vm_dir/run-main-job.sh" "ZRAM=$driver" KERNEL=debug "TIMEOUT=$vm_timeout" "OUT=$out" \
		"SRC_MIB=$main_src_mib" "BIN_MIB=$main_bin_mib" \
		>"$out/run.log" 2>&1
	echo $? >"$out/main-rc"
	echo $(($(date +%s) - start)) >"$out/main-secs"
}

assign_lanes
rc=0
summaries=()
lanes=()
ran_tests=0
asserts=0
declare -A splats times
# every lane of every driver side by side, one VM each
for driver in "${drivers[@]}"; do
	for ((k = 0; k < shards; k++)); do
		lane=$driver
		[ "$shards" = 1 ] || lane=$driver.$k
		lanes+=("$lane")
		rm -rf "${results:?}/$lane"
		mkdir -p "$results/$lane"
		log "$lane: kselftests on the debug kernel (log: $results/$lane/run.log)"
		run_suite "$driver" "$lane" "$k" &
	done
done
# The main jobs start once the first lane is done, beside the lanes still
# running.
[ "${#lanes[@]}" = 0 ] || wait -n
for driver in "${main_drivers[@]}"; do
	run_main "$driver"
done
wait

for lane in "${lanes[@]}"; do
	driver=${lane%%.*}
	out=$results/$lane
	run_rc=$(cat "$out/suite-rc")
	times[$lane]=$(cat "$out/suite-secs")
	grep -a -E '^(not )?ok [0-9]+ selftests|^# run_all: ' "$out/console.log" |
		sed "s/^/[$lane] /"
	ran_tests=$((ran_tests + $(grep -a -c -E '^(not )?ok [0-9]+ selftests' "$out/console.log")))
	a=$(vm_assertions "$out/console.log")
	asserts=$((asserts + ${a:-0}))
	summary=$(grep -a -o 'zram selftests:.*' "$out/console.log" | tail -1)
	reports=$(grep -a -o 'zram kernel reports on .*' "$out/console.log" | tail -1)
	if [ -z "$summary" ] || [ -z "$reports" ]; then
		summary="no summary (the VM run failed, exit $run_rc; see $out/run.log)"
		rc=1
	elif [ "$run_rc" != 0 ]; then
		rc=1
	fi
	# reports outside the tests (boot, between tests) count too
	n=$(sed -E -n 's/^zram kernel reports on [a-z]+: ([0-9]+).*/\1/p' <<<"$reports")
	boot=$(vm_reports "$out")
	splats[$driver]=$((${splats[$driver]:-0} + ${n:-0}))
	summaries+=("$lane: $summary; ${a:-no} assertions; ${reports:-no report count}; whole boot: $boot report(s), ${times[$lane]} s")
done

for driver in "${main_drivers[@]}"; do
	out=$results/main-$driver
	main_rc=$(cat "$out/main-rc")
	secs=$(cat "$out/main-secs")
	times[main-$driver]=$secs
	n=$(vm_reports "$out")
	grep -a -E '^\[main-job .*\] (PASS|FAILED)|checksums:' "$out/console.log" |
		sed "s/^/[main-$driver] /"
	if [ "$main_rc" = 0 ]; then
		result=PASS
	else
		result="FAILED (exit $main_rc)"
		rc=1
	fi
	summaries+=("main job $driver: $result, $n kernel report(s), $secs s")
	ran_tests=$((ran_tests + 1))
	splats[$driver]=$((${splats[$driver]:-0} + n))
	[ "$n" = 0 ] || log "main job $driver: reports in $out/reports.txt"
done

echo
log "summaries (debug kernel $KVER)"
printf '  %s\n' "${summaries[@]}"
log "total $(($(date +%s) - t0)) s"
log "tests: $ran_tests (selftests and main jobs), assertions: $asserts"
vm_tier_counts "$ran_tests" "$asserts"
echo "debug kernel: splats on stock: ${splats[stock]:-0} (stock's, not counted)"
echo "debug kernel: splats on ours: ${splats[ours]:-0}"
[ "${splats[ours]:-0}" = 0 ] || rc=1
exit "$rc"
