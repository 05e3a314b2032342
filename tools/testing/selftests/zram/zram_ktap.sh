# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# KTAP output: the plan, result lines, checks, the final summary, the
# case runner; and the cleanup stack, whose EXIT trap undoes what the
# helpers created.

# ---------------------------------------------------------------- KTAP

ktap_plan() {
	ktap_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_pass=$((ktap_pass + 1))
	echo "ok $ktap_num $*"
}

ktap_not_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_fail=$((ktap_fail + 1))
	echo "not ok $ktap_num $*"
}

# ktap_skip DESC REASON
ktap_skip() {
	ktap_num=$((ktap_num + 1))
	ktap_skip=$((ktap_skip + 1))
	echo "ok $ktap_num $1 # SKIP $2"
}

# ktap_skip_n N DESC REASON: N skipped results "DESC: result 1".."DESC:
# result N", for a part of a test that cannot run here.
ktap_skip_n() {
	local i

	for ((i = 1; i <= $1; i++)); do
		ktap_skip "$2: result $i" "$3"
	done
}

ktap_info() {
	echo "# $*"
}

# ktap_check DESC CMD...: one result line from a command's exit status.
ktap_check() {
	local desc=$1

	shift
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
}

# zram_quiet CMD...: run CMD, show its output (as diagnostics) only if it
# fails.
zram_quiet() {
	local out

	out=$("$@" 2>&1) && return 0
	echo "$out" | tail -20 | sed 's/^/# /'
	return 1
}

# ktap_eq DESC GOT WANT
ktap_eq() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		ktap_info "$1: got '$2', want '$3'"
		ktap_not_ok "$1"
	fi
}

# ktap_finish: totals line and exit code 0 pass / 1 fail / 4 all skipped.
ktap_finish() {
	if [ "$ktap_num" -ne "${ktap_planned:-0}" ]; then
		echo "# planned ${ktap_planned:-0} tests, ran $ktap_num"
		ktap_fail=$((ktap_fail + 1))
	fi
	echo "# totals: pass:$ktap_pass fail:$ktap_fail skip:$ktap_skip"
	if [ "$ktap_fail" -gt 0 ]; then
		exit "$KSFT_FAIL"
	fi
	if [ "$ktap_pass" -eq 0 ] && [ "$ktap_skip" -gt 0 ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

# ktap_skip_all REASON: the whole test cannot run here.
ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# ktap_bail REASON: setup failed after the plan was printed.
ktap_bail() {
	echo "Bail out! $*"
	exit "$KSFT_FAIL"
}

# ktap_run_cases CASE...: the plan is the number of cases; each CASE (a
# function) runs in turn and prints exactly one result line, then the test
# finishes. A case that prints no result is reported as failed, one that
# prints several breaks the plan, which ktap_finish reports.
ktap_run_cases() {
	local c n

	ktap_plan $#
	for c in "$@"; do
		n=$ktap_num
		"$c"
		[ "$ktap_num" -gt "$n" ] || ktap_not_ok "$c printed no result"
	done
	ktap_finish
}

# ------------------------------------------------------- cleanup stack

# zram_defer CMD...: run CMD (quoted words) at exit, last registered first.
zram_defer() {
	local cmd

	printf -v cmd '%q ' "$@"
	zram_undo+=("$cmd")
}

zram_run_undo() {
	local i

	# descriptors a test holds on a device would make reset fail
	exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-
	for ((i = ${#zram_undo[@]} - 1; i >= 0; i--)); do
		eval "${zram_undo[$i]}" >/dev/null 2>&1
	done
	zram_undo=()
}

trap zram_run_undo EXIT
