# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys, fio_data and the helpers come from lib.sh:
# shellcheck disable=SC2154
#
# Suite "io": 4 KiB random reads and writes on a zram0 filled with ~50%
# compressible data, io_uring (iodepth 16) and psync, 2 jobs, stock vs ours.
# Sourced by bench.sh after lib.sh. fio JSON goes to
# $out/io/DRIVER-ENGINE-RW-RUN.json (parsed on the host).

# Usage: io_fio DRIVER ENGINE RW RUN
io_fio() {
	local drv=$1 engine=$2 rw=$3 run=$4 qd=16

	[ "$engine" = psync ] && qd=1
	need_blockdev /dev/zram0
	fio --name="io-$drv-$engine-$rw" --filename=/dev/zram0 \
		--ioengine="$engine" --rw="$rw" --bs=4k --iodepth="$qd" \
		--numjobs=2 --group_reporting --direct=1 --time_based \
		--runtime="$BENCH_IO_SECS" --size="${BENCH_IO_MB}M" \
		"${fio_data[@]}" --slat_percentiles=1 --output-format=json \
		--output="$out/io/$drv-$engine-$rw-$run.json" ||
		die "fio $engine $rw on $drv failed"
}

# One driver load: fill, then every engine/pattern once.
io_case() {
	local drv=$1 run=$2 engine rw

	load_driver "$drv"
	set_knob "$zsys/disksize" "${BENCH_IO_MB}M"
	fill /dev/zram0 "${BENCH_IO_MB}M"
	for engine in $BENCH_IO_ENGINES; do
		for rw in randread randwrite; do
			io_fio "$drv" "$engine" "$rw" "$run"
			say "io $drv $engine $rw run $run done"
		done
	done
	unload_driver
}

suite_io() {
	local run drv

	mkdir -p "$out/io"
	for run in $(seq 1 "$BENCH_RUNS"); do
		for drv in $BENCH_IO_DRIVERS; do
			io_case "$drv" "$run"
		done
	done
}
