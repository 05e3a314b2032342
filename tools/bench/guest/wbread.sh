# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys, fio_data and the helpers come from lib.sh, nullb_create and
# rotate_words from writeback.sh:
# shellcheck disable=SC2154
#
# Suite "wbread": reads of written-back data, the drivers of
# BENCH_WBREAD_DRIVERS in one boot, BENCH_WBREAD_RUNS runs, the drivers
# rotated per run (as suite iowb). Each (driver, run) loads the driver on
# a fresh flash-model null_blk as suite iowb's (BENCH_IOWB_NSEC,
# BENCH_IOWB_MBPS, BENCH_IOWB_QD, 4 KiB blocks, BENCH_IO_MB + 1 MiB), and
# reads zram0 (BENCH_IO_MB) in two states, set up once each:
#   s1  filled with the benchmark data, all idle, one idle writeback
#   s2  s1, then BENCH_WBREAD_CYCLES cycles of: every odd page discarded
#       and rewritten with the cycle's own data, all idle, idle writeback
#       (a swap device's freeing and refilling)
# In each state every engine of BENCH_WBREAD_ENGINES reads the whole disk,
# fio, O_DIRECT, BENCH_IO_SECS (time based: sequential ones wrap around),
# caches dropped first:
#   rand-uring1  io_uring randread 4k, iodepth 16, 1 job
#   rand-uring2  the same, 2 jobs
#   rand-psync4  psync randread 4k, 4 jobs
#   seq-psync    psync read 128k, 1 job
#   seq-uring    io_uring read 128k, iodepth 4, 1 job
# Each run first reads a null_blk of the same model itself with seq-psync
# (DRIVER device, STATE dev): the device's own bandwidth.
# Sourced by bench.sh after lib.sh and writeback.sh. Records go to
# io/DRIVER-wbread-STATE-ENGINE-RUN.json (fio JSON) and, a line per fio
# run, to $out/wbread.txt: the backing device's read commands and sectors
# during it (fields 1 and 3 of its stat) and, for zram0, the blocks zram
# read from it (bd_stat bd_reads) and bd_count after it.

wbread_nullb=nullb_wbread

# Usage: wbread_engine ENGINE; prints the fio options of a read engine
wbread_engine() {
	case $1 in
	rand-uring1) echo --ioengine=io_uring --rw=randread --bs=4k \
		--iodepth=16 --numjobs=1 ;;
	rand-uring2) echo --ioengine=io_uring --rw=randread --bs=4k \
		--iodepth=16 --numjobs=2 ;;
	rand-psync4) echo --ioengine=psync --rw=randread --bs=4k --numjobs=4 ;;
	seq-psync) echo --ioengine=psync --rw=read --bs=128k --numjobs=1 ;;
	seq-uring) echo --ioengine=io_uring --rw=read --bs=128k \
		--iodepth=4 --numjobs=1 ;;
	*) die "unknown wbread engine $1" ;;
	esac
}

# Prints zram0's mm_stat, single-spaced.
wbread_mm_stat() {
	local v

	read -r -a v <"$zsys/mm_stat"
	echo "${v[*]}"
}

# Makes suite iowb's flash-model null_blk, its stat counting every request.
wbread_nullb_create() {
	nullb_create "$wbread_nullb" "$BENCH_IOWB_NSEC" "$BENCH_IOWB_MBPS" \
		$((BENCH_IO_MB + 1)) 4096 "$BENCH_IOWB_QD"
	set_knob "/sys/block/$wbread_nullb/queue/iostats" 1
}

# One engine over DEV (zram0 or the null_blk itself) for BENCH_IO_SECS,
# caches dropped first; fio JSON to io/DRIVER-wbread-STATE-ENGINE-RUN.json,
# the null_blk's reads during it to wbread.txt.
# Usage: wbread_fio DEV DRIVER STATE ENGINE RUN
wbread_fio() {
	local dev=$1 drv=$2 state=$3 engine=$4 run=$5 cmds sectors blocks=
	local name=$2-wbread-$3-$4-$5 nullb=/dev/$wbread_nullb zram=
	local -a opts

	read -r -a opts <<<"$(wbread_engine "$engine")"
	need_blockdev "$dev"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cmds=$(zram_disk_stat "$nullb" 1)
	sectors=$(zram_disk_stat "$nullb" 3)
	[ "$dev" != /dev/zram0 ] || blocks=$(bd_reads)
	fio --name="$name" --filename="$dev" "${opts[@]}" --direct=1 \
		--group_reporting --time_based --runtime="$BENCH_IO_SECS" \
		--size="${BENCH_IO_MB}M" "${fio_data[@]}" --output-format=json \
		--output="$out/io/$name.json" ||
		die "fio $engine on $drv ($state) failed"
	cmds=$(($(zram_disk_stat "$nullb" 1) - cmds))
	sectors=$(($(zram_disk_stat "$nullb" 3) - sectors))
	[ -z "$blocks" ] ||
		zram="bd_reads=$(($(bd_reads) - blocks)) bd_count=$(bd_count)"
	record wbread.txt "driver=$drv state=$state engine=$engine run=$run" \
		"dev_reads=$cmds dev_sectors=$sectors $zram"
	say "wbread $drv $state $engine run $run: $cmds device reads," \
		"$sectors sectors${zram:+, $zram}"
}

# The device's own bandwidth: a null_blk as wbread_case makes, written
# first (null_blk allocates its memory on the first write), then read
# by seq-psync. Usage: wbread_device RUN
wbread_device() {
	wbread_nullb_create
	fill "/dev/$wbread_nullb" "${BENCH_IO_MB}M"
	wbread_fio "/dev/$wbread_nullb" device dev seq-psync "$1"
	nullb_remove "$wbread_nullb"
}

# State s1: zram0 filled, all of it idle and written back by one call.
wbread_s1() {
	fill /dev/zram0 "${BENCH_IO_MB}M"
	echo all >"$zsys/idle" || die "echo all > idle failed"
	echo idle >"$zsys/writeback" || die "writeback failed"
}

# State s2 from s1: BENCH_WBREAD_CYCLES cycles of: every odd page
# discarded (a fio trim per page), rewritten with the cycle's own data
# (a later --randseed wins over fio_data's), all idle, idle writeback.
wbread_s2() {
	local c
	local -a odd=(--filename=/dev/zram0 --offset=4k
		--size=$((BENCH_IO_MB * 1024 - 4))k --bs=4k --direct=1
		--ioengine=psync --output-format=terse)

	for ((c = 1; c <= BENCH_WBREAD_CYCLES; c++)); do
		fio --name=discard "${odd[@]}" --rw=trim:4k --eta=never \
			>/dev/null || die "fio trim of the odd pages failed"
		say "wbread s2 cycle $c: bd_stat $(bd_stat) after the discard"
		fio --name=refill "${odd[@]}" --rw=write:4k "${fio_data[@]}" \
			--randseed=$((20261129 + c)) >/dev/null ||
			die "fio rewrite of the odd pages failed"
		echo all >"$zsys/idle" || die "echo all > idle failed"
		echo idle >"$zsys/writeback" || die "writeback failed"
	done
}

# Every engine over zram0 in one state. The log gets bd_stat and mm_stat
# before and after; notes.txt (printed in the table) a state with
# compressed data still in RAM before the reads (mm_stat compr_data_size;
# orig_data_size counts written-back pages too), or one they changed.
# Usage: wbread_reads DRIVER STATE RUN
wbread_reads() {
	local drv=$1 state=$2 run=$3 engine count stored

	count=$(bd_count)
	stored=$(zram_field mm_stat 2)
	say "wbread $drv $state run $run: bd_stat $(bd_stat)," \
		"mm_stat $(wbread_mm_stat)"
	[ "$stored" = 0 ] ||
		record notes.txt "wbread $drv $state run $run: $stored bytes" \
			"(mm_stat compr_data_size) were still in RAM before the reads"
	for engine in $BENCH_WBREAD_ENGINES; do
		wbread_fio /dev/zram0 "$drv" "$state" "$engine" "$run"
	done
	say "wbread $drv $state run $run after the reads: bd_stat" \
		"$(bd_stat), mm_stat $(wbread_mm_stat)"
	[ "$(bd_count)" = "$count" ] ||
		record notes.txt "wbread $drv $state run $run: the reads changed" \
			"bd_count from $count to $(bd_count)"
}

# One (driver, run): a fresh module and null_blk, s1 and its reads, then
# s2 and its reads. Usage: wbread_case DRIVER RUN
wbread_case() {
	local drv=$1 run=$2 state

	load_driver "$drv"
	wbread_nullb_create
	set_knob "$zsys/backing_dev" "/dev/$wbread_nullb"
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "${BENCH_IO_MB}M"
	set_strategy "$drv"
	for state in s1 s2; do
		"wbread_$state"
		wbread_reads "$drv" "$state" "$run"
	done
	unload_driver
	nullb_remove "$wbread_nullb"
}

suite_wbread() {
	local run drv drivers

	mkdir -p "$out/io"
	drivers=$(usable_drivers "$BENCH_WBREAD_DRIVERS")
	[ -n "$drivers" ] || return 0
	for run in $(seq 1 "$BENCH_WBREAD_RUNS"); do
		wbread_device "$run"
		# shellcheck disable=SC2086 # a list of words
		for drv in $(rotate_words $((run - 1)) $drivers); do
			wbread_case "$drv" "$run"
		done
	done
}
