# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys, fio_data and the helpers come from lib.sh:
# shellcheck disable=SC2154
#
# Suite "io": 4 KiB random reads and writes on a zram0 filled with ~50%
# compressible data, io_uring (iodepth 16) and psync, 2 jobs, stock vs ours,
# BENCH_IO_RUNS times, the drivers interleaved (stock, ours, stock, ...).
# Sourced by bench.sh after lib.sh. fio JSON goes to
# $out/io/DRIVER-ENGINE-RW-RUN.json (parsed on the host).

# Usage: io_fio DRIVER ENGINE RW RUN (RW randreadwb, randreadwb512:
# randread, named apart); fio runs under the command of io_fio_wrap, if any
io_fio_wrap=()
io_fio() {
	local drv=$1 engine=$2 rw=$3 run=$4 qd=16

	[ "$engine" = psync ] && qd=1
	need_blockdev /dev/zram0
	"${io_fio_wrap[@]}" fio --name="io-$drv-$engine-$rw" \
		--filename=/dev/zram0 --ioengine="$engine" --rw="${rw%%wb*}" \
		--bs=4k --iodepth="$qd" --numjobs=2 --group_reporting --direct=1 \
		--time_based --runtime="$BENCH_IO_SECS" --size="${BENCH_IO_MB}M" \
		"${fio_data[@]}" --slat_percentiles=1 --output-format=json \
		--output="$out/io/$drv-$engine-$rw-$run.json" ||
		die "fio $engine $rw on $drv failed"
}

# One driver load: fill, then every engine/pattern once.
io_case() {
	local drv=$1 run=$2 engine rw

	load_driver "$drv"
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "${BENCH_IO_MB}M"
	set_strategy "$drv"
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
	local run drv drivers

	mkdir -p "$out/io"
	drivers=$(usable_drivers "$BENCH_IO_DRIVERS")
	for run in $(seq 1 "$BENCH_IO_RUNS"); do
		for drv in $drivers; do
			io_case "$drv" "$run"
		done
	done
}

trace=/sys/kernel/tracing
punt_event=$trace/events/io_uring/io_uring_queue_async_work

# BENCH_IOWB_TRACE=1: the reads io_uring hands to its io-wq workers (the
# driver refused them with EAGAIN) are counted by their tracepoint, and
# the backing device blocks read by bd_stat, during one fio run. So are
# the bios the backing device is sent (block_bio_queue) and those that got
# a request (block_getrq): the rest were refused for want of one, REQ_NOWAIT
# bios when all the device's tags were taken, and the driver sent them again
# from a worker. Those two are counted by hist triggers on the device's
# dev_t, which need no room in the trace buffer.
iowb_trace_start() {
	local devt

	grep -q " $trace " /proc/mounts || mount -t tracefs nodev "$trace" ||
		die "cannot mount tracefs"
	set_knob "$trace/tracing_on" 0
	set_knob "$trace/buffer_size_kb" 16384
	set_knob "$trace/trace" ""
	set_knob "$punt_event/enable" 1
	devt=$(zram_devt /dev/nullb_iowb) || die "no /dev/nullb_iowb"
	iowb_hist="hist:keys=dev if dev == $devt"
	set_knob "$trace/events/block/block_bio_queue/trigger" "$iowb_hist"
	set_knob "$trace/events/block/block_getrq/trigger" "$iowb_hist"
	set_knob "$trace/tracing_on" 1
	iowb_bd_reads=$(bd_reads)
}

# Usage: iowb_hits EVENT; the hits of EVENT's hist trigger, which it removes
iowb_hits() {
	local dir=$trace/events/block/$1 hits

	hits=$(awk '/^ *Hits:/ { print $2; exit }' "$dir/hist")
	set_knob "$dir/trigger" "!$iowb_hist"
	echo "${hits:-0}"
}

# Usage: iowb_trace_report DRIVER RW RUN; records to $out/iowb-trace.txt
iowb_trace_report() {
	local json=$out/io/$1-io_uring-$2-$3.json reads blocks punts bios rqs

	set_knob "$trace/tracing_on" 0
	set_knob "$punt_event/enable" 0
	punts=$(grep -c io_uring_queue_async_work "$trace/trace" || true)
	bios=$(iowb_hits block_bio_queue)
	rqs=$(iowb_hits block_getrq)
	blocks=$(($(bd_reads) - iowb_bd_reads))
	# the "read" section comes first in fio's JSON
	reads=$(awk -F: '/"total_ios"/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$json")
	[ "${reads:-0}" -gt 0 ] || die "no reads in $json"
	record iowb-trace.txt "driver=$1 rw=$2 run=$3 reads=$reads" \
		"bd_reads=$blocks iowq_punts=$punts backing_bios=$bios" \
		"backing_rqs=$rqs"
	say "iowb $1 $2 run $3: $reads reads, $blocks blocks read" \
		"($(per_read "$blocks" "$reads") per read), $punts handed to" \
		"io-wq ($(per_read "$punts" "$reads") per read), $bios bios" \
		"sent to the backing device, $((bios - rqs)) of them refused" \
		"($(per_read $((bios - rqs)) "$reads") per read)"
}

# Usage: per_read COUNT READS; COUNT / READS with two decimals
per_read() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# BENCH_IOWB_PROFILE=1: where the CPU time of one fio run goes, sampled
# by perf (cpu-clock, every CPU, call graphs) from the bundle of the host's
# perf that run.sh puts in $BENCH_PERF_DIR. Every kernel symbol that the
# samples hold gets its share with callees ("children") and without
# ("self"), in percent of all samples, idle included; report.py picks the
# ones its table shows.
iowb_prof_data=/tmp/iowb-perf.data

# Runs the host's perf from its bundle (its own loader and libraries).
bench_perf() {
	local dir=$BENCH_PERF_DIR

	"$dir/lib/ld-linux-x86-64.so.2" --library-path "$dir/lib" \
		"$dir/perf" "$@"
}

iowb_prof_start() {
	[ -x "$BENCH_PERF_DIR/perf" ] ||
		die "no perf bundle in '$BENCH_PERF_DIR' (start with tools/bench/run.sh)"
	set_knob /proc/sys/kernel/kptr_restrict 0
	set_knob /proc/sys/kernel/perf_event_paranoid -1
	io_fio_wrap=(bench_perf record -q -a -g -e cpu-clock -F 1000
		-o "$iowb_prof_data" --)
}

# Usage: iowb_prof_report DRIVER RW RUN; records to $out/iowb-profile.txt
iowb_prof_report() {
	io_fio_wrap=()
	bench_perf report -i "$iowb_prof_data" --stdio --children \
		--sort sym -g none 2>/dev/null |
		awk -v head="driver=$1 rw=$2 run=$3" '
		$3 == "[k]" {
			sub(/%/, "", $1); sub(/%/, "", $2)
			print head, "sym=" $4, "children=" $1, "self=" $2
		}' >>"$out/iowb-profile.txt" ||
		die "perf report of $1 $2 run $3 failed"
	rm -f "$iowb_prof_data"
}

# Suite "iowb": 4 KiB random reads of data on the backing device: zram0
# filled with the benchmark data, all of it written back to a flash-model
# null_blk (as in suite writeback, capped at BENCH_IOWB_MBPS MB/s and
# BENCH_IOWB_QD commands in flight, each completing after BENCH_IOWB_NSEC)
# with logical blocks of LBS bytes, caches dropped, then fio io_uring randread
# (iodepth 16, 2 jobs). ours reads each slot's block into the page;
# ours-packed reads the sectors of the block(s) holding its object and
# decompresses. Records
# io/DRIVER-io_uring-randreadwb-RUN.json (LBS 4096) or
# io/DRIVER-io_uring-randreadwbLBS-RUN.json.
# Usage: iowb_case DRIVER RUN LBS
iowb_case() {
	local drv=$1 run=$2 lbs=$3 mb=$((BENCH_IO_MB + 1)) rw=randreadwb

	[ "$lbs" = 4096 ] || rw=randreadwb$lbs
	load_driver "$drv"
	nullb_create nullb_iowb "$BENCH_IOWB_NSEC" "$BENCH_IOWB_MBPS" "$mb" "$lbs" \
		"$BENCH_IOWB_QD"
	set_knob "$zsys/backing_dev" /dev/nullb_iowb
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "${BENCH_IO_MB}M"
	set_strategy "$drv"
	fill /dev/zram0 "${BENCH_IO_MB}M"
	echo all >"$zsys/idle" || die "echo all > idle failed"
	echo idle >"$zsys/writeback" || die "writeback failed"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	say "iowb $drv $rw run $run: bd_stat $(bd_stat)"
	[ "$BENCH_IOWB_TRACE" = 0 ] || iowb_trace_start
	[ "$BENCH_IOWB_PROFILE" = 0 ] || iowb_prof_start
	io_fio "$drv" io_uring "$rw" "$run"
	[ "$BENCH_IOWB_PROFILE" = 0 ] || iowb_prof_report "$drv" "$rw" "$run"
	[ "$BENCH_IOWB_TRACE" = 0 ] || iowb_trace_report "$drv" "$rw" "$run"
	say "iowb $drv io_uring $rw run $run done"
	unload_driver
	nullb_remove nullb_iowb
}

suite_iowb() {
	local run drv lbs drivers

	mkdir -p "$out/io"
	drivers=$(usable_drivers "$BENCH_IOWB_DRIVERS")
	[ -n "$drivers" ] || return 0
	for run in $(seq 1 "$BENCH_RUNS"); do
		for lbs in $BENCH_IOWB_LBS; do
			# shellcheck disable=SC2086 # a list of words
			for drv in $(rotate_words $((run - 1)) $drivers); do
				iowb_case "$drv" "$run" "$lbs"
			done
		done
	done
}
