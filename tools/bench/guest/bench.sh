#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench`: runs the writeback and io suites in one boot,
# stock zram.ko and ours alternately, and leaves raw results in /out for
# tools/bench/report.py on the host. Started by tools/bench/run.sh.
# Environment: BENCH_SUITES, BENCH_MB, BENCH_RUNS, BENCH_DEVICES,
# BENCH_BITMAPS, BENCH_VIRTIO_BITMAPS, BENCH_DRIVERS, BENCH_MORE_DRIVERS,
# BENCH_MORE_CASES, BENCH_IO_MB, BENCH_DEVBW_SECS, BENCH_IO_SECS,
# BENCH_IO_RUNS, BENCH_IO_ENGINES, BENCH_IO_DRIVERS,
# BENCH_IOWB_DRIVERS, BENCH_IOWB_LBS, BENCH_IOWB_MBPS, BENCH_IOWB_QD,
# BENCH_IOWB_NSEC, BENCH_CALLS_MB, BENCH_CALLS_DRIVERS, BENCH_CALLS_BD_MB,
# BENCH_MEM_DISK_MB, BENCH_MEM_BD_MB, BENCH_MEM_FILL_MB, BENCH_MEM_DRIVERS,
# BENCH_WBREAD_RUNS, BENCH_WBREAD_CYCLES, BENCH_WBREAD_DRIVERS,
# BENCH_WBREAD_ENGINES, BENCH_STOCK_AS_OURS (see run.sh).

# shellcheck source-path=SCRIPTDIR
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=writeback.sh
. "$(dirname "$0")/writeback.sh"
# shellcheck source=io.sh
. "$(dirname "$0")/io.sh"
# shellcheck source=calls.sh
. "$(dirname "$0")/calls.sh"
# shellcheck source=memory.sh
. "$(dirname "$0")/memory.sh"
# shellcheck source=wbread.sh
. "$(dirname "$0")/wbread.sh"

# The defaults live in tools/bench/run.sh, which passes every setting.
for v in BENCH_SUITES BENCH_MB BENCH_RUNS BENCH_DEVICES BENCH_BITMAPS \
	BENCH_VIRTIO_BITMAPS BENCH_DEVBW_SECS BENCH_DRIVERS BENCH_IO_MB \
	BENCH_IO_SECS BENCH_IO_RUNS BENCH_IO_ENGINES BENCH_IO_DRIVERS \
	BENCH_IOWB_DRIVERS BENCH_IOWB_LBS BENCH_IOWB_MBPS BENCH_IOWB_QD \
	BENCH_IOWB_NSEC BENCH_CALLS_MB BENCH_CALLS_DRIVERS BENCH_CALLS_BD_MB \
	BENCH_MEM_DISK_MB BENCH_MEM_BD_MB BENCH_MEM_FILL_MB BENCH_MEM_DRIVERS \
	BENCH_WBREAD_RUNS BENCH_WBREAD_CYCLES BENCH_WBREAD_DRIVERS \
	BENCH_WBREAD_ENGINES; do
	[ -n "${!v:-}" ] || die "$v is not set (start the bench with tools/bench/run.sh)"
done
# these two may be empty
for v in BENCH_MORE_DRIVERS BENCH_MORE_CASES; do
	[ -n "${!v+set}" ] || die "$v is not set (start the bench with tools/bench/run.sh)"
done

{
	echo "kernel=$(uname -r) cpus=$(nproc) bench_mb=$BENCH_MB runs=$BENCH_RUNS"
	echo "suites=${BENCH_SUITES// /,}"
	echo "devices=${BENCH_DEVICES// /,} bitmaps=${BENCH_BITMAPS// /,}"
	echo "virtio_bitmaps=${BENCH_VIRTIO_BITMAPS// /,}"
	echo "more_drivers=${BENCH_MORE_DRIVERS// /,}" \
		"more_cases=${BENCH_MORE_CASES// /,}"
	echo "io_mb=$BENCH_IO_MB io_secs=$BENCH_IO_SECS io_runs=$BENCH_IO_RUNS" \
		"iowb_mbps=$BENCH_IOWB_MBPS" \
		"iowb_qd=$BENCH_IOWB_QD iowb_nsec=$BENCH_IOWB_NSEC"
	echo "calls_mb=$BENCH_CALLS_MB calls_bd_mb=$BENCH_CALLS_BD_MB"
	echo "mem_disk_mb=$BENCH_MEM_DISK_MB mem_bd_mb=$BENCH_MEM_BD_MB" \
		"mem_fill_mb=$BENCH_MEM_FILL_MB"
	echo "wbread_runs=$BENCH_WBREAD_RUNS" \
		"wbread_cycles=$BENCH_WBREAD_CYCLES"
	echo "stock_as_ours=${BENCH_STOCK_AS_OURS:-0} fio=$(fio --version)"
	echo "ours_rev=${BENCH_KO_REV:-?}"
} >"$out/params.txt"
: >"$out/writeback.txt"
: >"$out/notes.txt"
say "suites: $BENCH_SUITES; $(tr '\n' ' ' <"$out/params.txt")"
for suite in $BENCH_SUITES; do
	case $suite in
	writeback) suite_writeback ;;
	io) suite_io ;;
	iowb) suite_iowb ;;
	calls) suite_calls ;;
	memory) suite_memory ;;
	wbread) suite_wbread ;;
	*) die "unknown suite $suite" ;;
	esac
done
say "all suites done"
# The host counts the kernel reports in it (tools/bench/run.sh).
dmesg >"$out/dmesg.txt"
