# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys and the helpers come from lib.sh and writeback.sh:
# shellcheck disable=SC2154
#
# Suite "calls": the same slots written back by one writeback call or by
# many, to see what a call costs beside the data it writes. BENCH_CALLS_MB
# of ~50% compressible data on an NVMe-model null_blk (20 us timer
# completions, no bandwidth cap: null_blk's cap releases bytes each
# millisecond, which would add its own wait to every call), each case on
# a fresh module and device. The backing device has BENCH_CALLS_BD_MB
# (0: BENCH_CALLS_MB + 1), so that a per-call cost that grows with it
# shows:
#   one      one write of page_indexes= over all of it
#   ranges   one write of page_indexes= per MiB
#   pages    one write of page_index= per page, over the first 4096 pages
#   params   writes of 256 page_index= parameters each, over the first
#            9984 pages (indices below 10,000: a write fits a page)
#   params-r the same slots by one page_indexes= range per write of params
# Sourced by bench.sh after lib.sh and writeback.sh. Records go to
# $out/calls.txt: case, driver, run, wall seconds, calls, pages and
# bd_writes of the timed writes.

calls_pages_one=4096
calls_params_pages=$((39 * 256))

# Prints the argument of call N (from 0) of CASE, pages per device MB.
calls_arg() {
	local case=$1 n=$2 lo i arg=

	case $case in
	one) echo "page_indexes=0-$((BENCH_CALLS_MB * 256 - 1))" ;;
	ranges) echo "page_indexes=$((n * 256))-$((n * 256 + 255))" ;;
	pages) echo "page_index=$n" ;;
	params)
		lo=$((n * 256))
		for ((i = lo; i < lo + 256; i++)); do
			arg+="page_index=$i "
		done
		echo "${arg% }"
		;;
	params-r) echo "page_indexes=$((n * 256))-$((n * 256 + 255))" ;;
	*) die "unknown calls case $case" ;;
	esac
}

# Usage: calls_count CASE; the writes a case makes
calls_count() {
	case $1 in
	one) echo 1 ;;
	ranges) echo "$BENCH_CALLS_MB" ;;
	pages) echo "$calls_pages_one" ;;
	params | params-r) echo $((calls_params_pages / 256)) ;;
	esac
}

# Makes the arguments of every call of CASE, one per line, into FILE, so
# that the timed loop does no arithmetic.
calls_args() {
	local case=$1 n nr

	nr=$(calls_count "$case")
	for ((n = 0; n < nr; n++)); do
		calls_arg "$case" "$n"
	done >"$2"
}

# Times the writes of the lines of FILE to writeback; "wall user sys".
# The lines are read before the clock starts: bash reads a line a byte at
# a time, which would cost more than a short writeback.
calls_timed() {
	local TIMEFORMAT='%3R %3U %3S' tf=/tmp/bench-calls-time line
	local -a lines

	mapfile -t lines <"$1"
	{
		time for line in "${lines[@]}"; do
			echo "$line" >"$zsys/writeback" ||
				die "writeback of '$line' failed"
		done
	} 2>"$tf"
	tail -n 1 "$tf"
}

# One case. Usage: calls_case CASE DRIVER RUN
calls_case() {
	local case=$1 drv=$2 run=$3 args=/tmp/bench-calls-args
	local bd0 t wall usr sys pages

	calls_args "$case" "$args"
	load_driver "$drv"
	set_knob "$zsys/backing_dev" /dev/nullb_calls
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "${BENCH_CALLS_MB}M"
	set_strategy "$drv"
	fill /dev/zram0 "${BENCH_CALLS_MB}M"
	bd0=$(bd_writes)
	t=$(calls_timed "$args")
	read -r wall usr sys <<<"$t"
	pages=$(bd_count)
	record calls.txt "case=$case driver=$drv run=$run wall_s=$wall" \
		"sys_s=$sys user_s=$usr calls=$(calls_count "$case")" \
		"pages=$pages bd_writes=$(($(bd_writes) - bd0))"
	say "calls $case $drv run $run: wall ${wall}s, $pages pages"
	unload_driver
}

suite_calls() {
	local run drv case drivers bd_mb

	((BENCH_CALLS_MB * 256 >= calls_params_pages)) ||
		die "BENCH_CALLS_MB must be 39 or more"
	: >"$out/calls.txt"
	drivers=$(usable_drivers "$BENCH_CALLS_DRIVERS")
	bd_mb=$BENCH_CALLS_BD_MB
	[ "$bd_mb" != 0 ] || bd_mb=$((BENCH_CALLS_MB + 1))
	nullb_create nullb_calls 20000 0 "$bd_mb"
	for run in $(seq 1 "$BENCH_RUNS"); do
		for case in one ranges pages params params-r; do
			# shellcheck disable=SC2086 # a list of words
			for drv in $(rotate_words $((run - 1)) $drivers); do
				calls_case "$case" "$drv" "$run"
			done
		done
	done
	nullb_remove nullb_calls
}
