# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Fault injection through debugfs.

# ------------------------------------------------------- fault injection
# (debugfs: CONFIG_FAULT_INJECTION_DEBUG_FS, and the stack filter of
# CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, so failures land in zram)

ZRAM_FI=/sys/kernel/debug
FI_TIMES=1000000
FI_KINDS=()
FI_REGION_MB=8

# zram_require_fault_injection KIND...: skip the test unless these fault
# attributes (failslab, fail_page_alloc, fail_make_request) are in debugfs.
zram_require_fault_injection() {
	local k

	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug >/dev/null 2>&1
	for k in "$@"; do
		[ -d "$ZRAM_FI/$k" ] ||
			ktap_skip_all "no $k fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS)"
		case $k in
		failslab | fail_page_alloc)
			[ -e "$ZRAM_FI/$k/require-start" ] ||
				ktap_skip_all "no fault injection stack filter" \
					"(CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
			;;
		esac
	done
}

# zram_fi_set KIND ATTR VALUE: set a fault attribute; the old value comes
# back at exit.
zram_fi_set() {
	local f=$ZRAM_FI/$1/$2 old

	read -r old <"$f" || return 1
	zram_defer zram_fi_restore "$f" "$old"
	echo "$3" >"$f"
}

zram_fi_restore() {
	echo "$2" >"$1"
}

# zram_text_range FIELD VALUE: "START END" (hex) of the text symbols in
# /proc/kallsyms whose FIELD (3: name, 4: "[module]") is VALUE: from the
# lowest up to the next symbol after the highest. Kernel addresses all
# have 16 digits, so they compare as strings.
zram_text_range() {
	local lo hi end

	read -r lo hi end < <(awk -v f="$1" -v v="$2" '
	$f == v && $2 ~ /^[tT]$/ {
		if (lo == "" || $1 < lo)
			lo = $1
		if ($1 > hi)
			hi = $1
	}
	{ addr[NR] = $1 }
	END {
		if (lo == "")
			exit 1
		for (i = 1; i <= NR; i++)
			if (addr[i] > hi && (end == "" || addr[i] < end))
				end = addr[i]
		print lo, hi, end
	}' /proc/kallsyms) || return 1
	# No symbol after it: the module loaded last, when nothing lies above
	# its code (7.x keeps module code apart from module data). A module's
	# code takes whole pages.
	[ -n "$end" ] || end=$(printf '%016x' $(((16#$hi | 0xfff) + 1)))
	echo "$lo $end"
}

# zram_code_range [MODULE]: the range of a module's code (default zram),
# its first function up to the symbol after its last one.
zram_code_range() {
	zram_text_range 4 "[${1:-zram}]"
}

# zram_symbol_range SYMBOL: the range of a kernel function.
zram_symbol_range() {
	zram_text_range 3 "$1"
}

# zram_fi_filter REQUIRE [REJECT]: from now on, only allocations with code
# of REQUIRE ("START END", hex) on the stack fail, and none with code of
# REJECT on it (default "0 0": no such code). zram_fi_alloc_setup set
# zram's code and no REJECT.
zram_fi_filter() {
	local k reject=${2:-0 0}

	for k in "${FI_KINDS[@]}"; do
		echo "0x${1% *}" >"$ZRAM_FI/$k/require-start" &&
			echo "0x${1#* }" >"$ZRAM_FI/$k/require-end" &&
			echo "0x${reject% *}" >"$ZRAM_FI/$k/reject-start" &&
			echo "0x${reject#* }" >"$ZRAM_FI/$k/reject-end" || return 1
	done
}

# zram_fi_alloc_setup [MODULE]: failslab and fail_page_alloc fail only
# allocations made with zram code on the stack (order 0 and sleeping ones
# too), and none with MODULE's code on it (the backing device's driver,
# which zram calls to submit its bios: its allocations are not zram's);
# never by themselves (probability 0): zram_fi_nth or zram_fi_random then
# choose which. Their "times" count down from FI_TIMES with each injected
# failure (zram_fi_count). Each failure is logged with its stack
# (zram_fi_last_stack).
zram_fi_alloc_setup() {
	local range reject="0 0" k

	range=$(zram_code_range) || return 1
	if [ -n "${1:-}" ]; then
		reject=$(zram_code_range "$1") || return 1
	fi
	for k in failslab fail_page_alloc; do
		zram_fi_set "$k" probability 0 &&
			zram_fi_set "$k" interval 1 &&
			zram_fi_set "$k" times "$FI_TIMES" &&
			zram_fi_set "$k" space 0 &&
			zram_fi_set "$k" verbose 2 &&
			zram_fi_set "$k" task-filter N &&
			zram_fi_set "$k" stacktrace-depth 32 &&
			zram_fi_set "$k" require-start "0x${range% *}" &&
			zram_fi_set "$k" require-end "0x${range#* }" &&
			zram_fi_set "$k" reject-start "0x${reject% *}" &&
			zram_fi_set "$k" reject-end "0x${reject#* }" &&
			zram_fi_set "$k" ignore-gfp-wait N || return 1
	done
	zram_fi_set fail_page_alloc min-order 0 &&
		zram_fi_set fail_page_alloc ignore-gfp-highmem N || return 1
	FI_KINDS=(failslab fail_page_alloc)
	ktap_info "allocation faults limited to zram code ${range% *}-${range#* }" \
		"${1:+(not under $1 code ${reject% *}-${reject#* })}"
}

# zram_fi_last_stack: the last injected failure's report in dmesg (kind,
# task and stack), as KTAP diagnostics.
zram_fi_last_stack() {
	dmesg | tac | sed -n '1,/FAULT_INJECTION: forcing a failure/p' | tac |
		sed -n '1,/<\/TASK>/p' | head -40 | sed 's/^/# /'
}

# zram_fi_count: sets FI_COUNT to the failures injected so far (since the
# setup) by the kinds set up. No output: call it without $(...), forks are
# slow on the debug kernel.
zram_fi_count() {
	local k t

	FI_COUNT=0
	for k in "${FI_KINDS[@]}"; do
		read -r t <"$ZRAM_FI/$k/times"
		FI_COUNT=$((FI_COUNT + FI_TIMES - t))
	done
}

# zram_fi_random PERCENT: from now on the tasks marked with make-it-fail
# (zram_fi_task) fail PERCENT% of their allocations in zram; 0 stops it.
zram_fi_random() {
	local k filter=Y

	[ "$1" -gt 0 ] || filter=N
	for k in "${FI_KINDS[@]}"; do
		echo "$filter" >"$ZRAM_FI/$k/task-filter" &&
			echo "$1" >"$ZRAM_FI/$k/probability" || return 1
	done
}

# zram_fi_task CMD...: run CMD (a program or a function) in a subshell
# marked make-it-fail; the processes it starts inherit the mark.
zram_fi_task() {
	(
		echo 1 >/proc/self/make-it-fail || exit 1
		"$@"
	)
}

# zram_fi_nth_list: the N to try in a fail-nth sweep: every N up to 8,
# then ever sparser up to ZRAM_FI_MAX_N (default 256), so that the first
# allocations and late ones both fail, in a few dozen runs. A sweep stops
# at the first N the operation does not reach.
zram_fi_nth_list() {
	local n=1 max=${ZRAM_FI_MAX_N:-256}

	while [ "$n" -le "$max" ]; do
		echo "$n"
		if [ "$n" -lt 8 ]; then
			n=$((n + 1))
		else
			n=$((n + n / 2))
		fi
	done
}

# zram_fi_nth N CMD...: run CMD (a function or builtin: it runs in this
# shell, whose task is counted) with the Nth allocation in zram code of
# this task failing. Sets FI_RC to CMD's status and FI_LEFT to what
# remains of the count (0: the failure was injected; N itself: CMD made no
# allocation in zram).
zram_fi_nth() {
	local n=$1

	shift
	echo "$n" >/proc/self/fail-nth || return 1
	"$@"
	FI_RC=$?
	read -r FI_LEFT </proc/self/fail-nth
	echo 0 >/proc/self/fail-nth
}

# zram_fi_nth_write ATTR VALUE N: write VALUE to ATTR (as zram_write)
# with the Nth allocation in zram failing; sets FI_RESULT to OK or the
# errno name, and FI_LEFT. Not in $(...): the write must be made by this
# shell's own task, whose counter it is.
zram_fi_nth_write() {
	local err=/tmp/zram-fi-write.$$

	zram_fi_nth "$3" zram_fi_builtin_write "$1" "$2" 2>"$err"
	if [ "$FI_RC" = 0 ]; then
		FI_RESULT=OK
	else
		FI_RESULT=$(zram_errno_name "$(cat "$err")")
	fi
	rm -f "$err"
}

zram_fi_builtin_write() {
	printf '%s\n' "$2" >"$1"
}

# zram_fail_disk DEV PERCENT: bios to DEV fail (fail_make_request) with
# PERCENT% probability, for every task; 0 stops it.
zram_fail_disk() {
	local sys

	sys=/sys/class/block/$(basename "$(readlink -f "$1")")
	if [ "$2" -gt 0 ]; then
		zram_fi_set fail_make_request probability "$2" &&
			zram_fi_set fail_make_request interval 1 &&
			zram_fi_set fail_make_request times -1 &&
			zram_fi_set fail_make_request verbose 0 &&
			zram_fi_set fail_make_request task-filter N &&
			zram_defer zram_fi_restore "$sys/make-it-fail" 0 &&
			echo 1 >"$sys/make-it-fail"
	else
		echo 0 >"$sys/make-it-fail"
	fi
}

# zram_blocks_consistent: bd_count equals the blocks that the slots
# block_state shows as written back hold: one per whole page, and the
# blocks holding packed objects (debugfs wb_stat; none without it). True
# when there is no block_state to compare with.
zram_blocks_consistent() {
	local objects blocks

	[ -r "$(zram_block_state_file)" ] || return 0
	objects=$(zram_wb_stat packed_objects)
	blocks=$(zram_wb_stat packed_blocks)
	[ $(($(zram_block_state_count w) - ${objects:-0} + ${blocks:-0})) = \
		"$(bd_count)" ]
}

# ----------------------------------------- allocation failures, io_uring
# (zram_inject_03, and zram_inject_05 with compressed_writeback on)

# zram_fi_regions NAMES RW [FIO_OPTION...]: io_uring O_DIRECT 64 KiB I/O,
# iodepth 16, one job per named region (a, b and c, FI_REGION_MB each, in
# that order from the start of the device); crc32c headers on writes,
# verified by reads. Work folder $FI_WORK; JSON in $FI_JSON.
zram_fi_regions() {
	local names=$1 rw=$2 name args=() r=$FI_REGION_MB

	shift 2
	for name in $names; do
		case $name in
		a) args+=(--name=a --offset=0) ;;
		b) args+=(--name=b --offset="${r}M") ;;
		c) args+=(--name=c --offset="$((2 * r))M") ;;
		esac
	done
	(cd "$FI_WORK" && fio --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
		--bs=64k --iodepth=16 --size="${r}M" --rw="$rw" \
		--buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_interval=4k --verify_state_save=0 \
		--do_verify="$([ "$rw" = read ] && echo 1 || echo 0)" \
		--group_reporting --output-format=json --output="$FI_JSON" \
		"$@" "${args[@]}" >"$FI_WORK/fio.err" 2>&1)
}

# zram_fi_wb_loop: idle writebacks every 0.2 s, at most 100, until
# $FI_WORK/stop exists.
zram_fi_wb_loop() {
	local runs=0

	while [ ! -e "$FI_WORK/stop" ] && [ "$runs" -lt 100 ]; do
		echo all >"$ZRAM_SYS/idle" 2>/dev/null
		echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
		runs=$((runs + 1))
		sleep 0.2
	done
}

# zram_fi_uring_reads whole|packed: the whole of zram_inject_03 (its
# header says what it checks); "packed" turns compressed_writeback on
# first, so that the reads of region a are reads of packed objects.
zram_fi_uring_reads() {
	local f0 wb_pid fio_rc injected err nerr

	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
	if [ "$1" = packed ]; then
		zram_require_packed
		echo 1 >"$ZRAM_SYS/compressed_writeback"
	fi
	zram_nullb 32 irqmode=2 completion_nsec=20000 ||
		ktap_skip_all "cannot create null_blk"
	# 8 MiB regions, zram_scaled: the faults hit a share of the I/O,
	# whatever its volume
	FI_REGION_MB=$(zram_scaled 8 2)

	FI_WORK=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
	zram_defer rm -rf "$FI_WORK"
	FI_JSON=$FI_WORK/fio.json

	zram_require_fio_uring "$NULLB"

	ktap_plan 11

	echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
	zram_init "$((4 * FI_REGION_MB))M" || ktap_bail "cannot set disksize"
	zram_fi_regions a write || ktap_bail "cannot write region a"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" || ktap_bail "writeback failed"
	zram_fi_regions "b c" write || ktap_bail "cannot write regions b and c"
	ktap_info "setup: region a written back to $(bd_count) blocks, b and c in RAM"
	zram_fi_alloc_setup null_blk || ktap_bail "cannot set up fault injection"

	# reads of a and b, writes to c, by fio marked make-it-fail, 10% failing
	zram_fi_count
	f0=$FI_COUNT
	zram_fi_wb_loop &
	wb_pid=$!
	zram_defer kill "$wb_pid"
	zram_fi_random 10
	zram_fi_task fio --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
		--bs=64k --iodepth=16 --size="${FI_REGION_MB}M" --verify_state_save=0 \
		--continue_on_error=io --group_reporting --output-format=json \
		--output="$FI_JSON" \
		--name=a --offset=0 --rw=read --verify=crc32c --verify_interval=4k \
		--do_verify=1 --loops=2 \
		--name=b --offset="${FI_REGION_MB}M" --rw=read --verify=crc32c \
		--verify_interval=4k \
		--do_verify=1 --loops=2 \
		--name=c --offset="$((2 * FI_REGION_MB))M" --rw=randwrite --verify=0 \
		--loops=2 \
		>"$FI_WORK/fio.err" 2>&1
	fio_rc=$?
	zram_fi_random 0
	touch "$FI_WORK/stop"
	wait "$wb_pid"
	zram_fi_count
	injected=$((FI_COUNT - f0))
	err=$(zram_fio_json "$FI_JSON" job error)
	nerr=$(zram_fio_json "$FI_JSON" job total_err)
	ktap_info "fio exit $fio_rc, first error ${err:-?}, $nerr errors," \
		"$injected failures injected"
	sed 's/^/# fio: /' "$FI_WORK/fio.err" | head -10

	ktap_check "allocation failures were injected" [ "$injected" -gt 0 ]
	case ${err:-missing} in
	0 | 5 | 11 | 12) ktap_ok "fio's errors, if any: EIO, EAGAIN or ENOMEM" ;;
	*) ktap_not_ok "fio's errors, if any: EIO, EAGAIN or ENOMEM (first: ${err:-none})" ;;
	esac
	if grep -q -E 'verify|bad (magic|header)|crc32c' "$FI_WORK/fio.err"; then
		ktap_not_ok "no read returned wrong data"
	else
		ktap_ok "no read returned wrong data"
	fi
	ktap_check "bd_count == written-back slots" zram_blocks_consistent

	# without faults
	zram_fi_regions "a b" read
	ktap_eq "regions a and b verify without faults" "$(zram_fio_json "$FI_JSON" job error)" 0
	zram_fi_regions c write
	zram_fi_regions c read
	ktap_eq "region c verifies once written again" "$(zram_fio_json "$FI_JSON" job error)" 0
	echo all >"$ZRAM_SYS/idle"
	ktap_check "writeback without faults succeeds" expect_errno OK "$ZRAM_SYS/writeback" idle
	zram_drop_caches
	zram_fi_regions "a b c" read
	ktap_eq "everything verifies after writeback" "$(zram_fio_json "$FI_JSON" job error)" 0
	ktap_check "bd_count == written-back slots after writeback" zram_blocks_consistent
	blkdiscard "$ZRAM_DEV"
	ktap_eq "discard of everything frees every block" "$(bd_count)" 0
	ktap_eq "orig_data_size 0 after discarding everything" "$(zram_field mm_stat 1)" 0

	ktap_finish
}
