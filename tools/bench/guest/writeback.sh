# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys, fio_data and the helpers come from lib.sh:
# shellcheck disable=SC2154
#
# Suite "writeback": idle writeback of BENCH_MB of ~50% compressible data to
# a backing device, fresh or fragmented bitmap, per driver strategy.
# Sourced by bench.sh after lib.sh. Records go to $out/writeback.txt, fio
# JSON of the device's own bandwidth to $out/devbw-DEVICE.json.

# Creates a memory-backed null_blk disk through configfs.
# Usage: nullb_create NAME COMPLETION_NSEC MBPS SIZE_MB
nullb_create() {
	local d=/sys/kernel/config/nullb/$1

	[ -d /sys/module/null_blk ] || modprobe null_blk nr_devices=0 ||
		die "cannot load null_blk"
	mkdir "$d" || die "cannot create $d"
	set_knob "$d/memory_backed" 1
	set_knob "$d/blocksize" 4096
	set_knob "$d/irqmode" 2
	set_knob "$d/completion_nsec" "$2"
	set_knob "$d/mbps" "$3"
	set_knob "$d/size" "$4"
	set_knob "$d/power" 1
	need_blockdev "/dev/$1"
}

nullb_remove() {
	local d=/sys/kernel/config/nullb/$1

	echo 0 >"$d/power" || die "cannot power off $d"
	rmdir "$d" || die "cannot remove $d"
}

# The device's own sequential write bandwidth. A first pass over the whole
# range the cases use preconditions it (allocates null_blk pages or the host
# file's blocks), so every case overwrites; the second pass, time based
# (BENCH_DEVBW_SECS) over the same range, is measured. Under TCG fio itself
# is CPU bound, so a driver may beat this number.
# Usage: dev_bandwidth DEV NAME RANGE_MB
dev_bandwidth() {
	local -a job=(--filename="$1" --rw=write --bs=128k --iodepth=8
		--direct=1 --ioengine=libaio --size="$3M" "${fio_data[@]}")

	need_blockdev "$1"
	fio --name="precondition-$2" "${job[@]}" --output-format=terse \
		>/dev/null || die "fio on $1 failed"
	fio --name="devbw-$2" "${job[@]}" --time_based \
		--runtime="$BENCH_DEVBW_SECS" --output-format=json \
		--output="$out/devbw-$2.json" || die "fio on $1 failed"
}

# Runs `echo idle > writeback` under bash's time; prints "wall user sys".
# Writeback runs in the writer's context, so the shell's own CPU time is
# the writeback's (what async completions cost elsewhere shows in sys_all).
timed_writeback() {
	local TIMEFORMAT='%3R %3U %3S' tf=/tmp/bench-time

	echo all >"$zsys/idle" || die "echo all > idle failed"
	if ! { time echo idle >"$zsys/writeback"; } 2>"$tf"; then
		cat "$tf" >&2
		die "echo idle > writeback failed"
	fi
	tail -n 1 "$tf"
}

# Brings zram0 into the bitmap state to test and leaves BENCH_MB of idle
# data in RAM. fragmented: 2x the data written back (blocks 1..2N in page
# order on a fresh bitmap), then every odd page overwritten, which frees
# every other block; the timed writeback fills those holes.
# Prints the setup writeback's wall time (0 for fresh).
prepare_bitmap() {
	local bitmap=$1 t pages=$((BENCH_MB * 256))

	if [ "$bitmap" = fresh ]; then
		fill /dev/zram0 "$BENCH_MB"
		echo 0
		return
	fi
	fill /dev/zram0 $((2 * BENCH_MB))
	t=$(timed_writeback)
	need_blockdev /dev/zram0
	fio --name=holes --filename=/dev/zram0 --rw=write:4k --bs=4k \
		--offset=4k --size=$((2 * BENCH_MB * 1024 - 4))k --direct=1 \
		--ioengine=psync "${fio_data[@]}" --output-format=terse \
		>/dev/null || die "fio hole punching failed"
	[ "$(bd_stat 1)" = "$pages" ] ||
		die "fragmented setup: bd_count $(bd_stat 1), expected $pages"
	echo "${t%% *}"
}

# One case. Usage: wb_case DEV DEVICE_NAME BITMAP DRIVER RUN
wb_case() {
	local dev=$1 name=$2 bitmap=$3 drv=$4 run=$5
	local setup_s bd0 c0 c1 t wall usr sys

	load_driver "$drv"
	set_knob "$zsys/backing_dev" "$dev"
	set_knob "$zsys/disksize" "$((2 * BENCH_MB + 16))M"
	set_strategy "$drv"
	setup_s=$(prepare_bitmap "$bitmap")
	bd0=$(bd_stat 3)
	c0=$(cpu_sys_ticks)
	t=$(timed_writeback)
	c1=$(cpu_sys_ticks)
	read -r wall usr sys <<<"$t"
	record writeback.txt "device=$name bitmap=$bitmap driver=$drv run=$run" \
		"wall_s=$wall sys_s=$sys user_s=$usr" \
		"sys_all_s=$(((c1 - c0) * 10))e-3 bd_writes=$(($(bd_stat 3) - bd0))" \
		"pages=$((BENCH_MB * 256)) setup_wb_s=$setup_s $(strategy_values)"
	say "writeback $name $bitmap $drv run $run: wall ${wall}s sys ${sys}s"
	unload_driver
}

# All cases on one backing device; runs interleave the drivers so drift
# over the boot hits all of them alike. Usage: wb_device DEV NAME BITMAPS
wb_device() {
	local dev=$1 name=$2 bitmaps=$3 bitmap drv run

	dev_bandwidth "$dev" "$name" $((2 * BENCH_MB + 16))
	for bitmap in $bitmaps; do
		for run in $(seq 1 "$BENCH_RUNS"); do
			for drv in $BENCH_DRIVERS; do
				wb_case "$dev" "$name" "$bitmap" "$drv" "$run"
			done
		done
	done
}

suite_writeback() {
	local name range=$((2 * BENCH_MB + 32))

	for name in $BENCH_DEVICES; do
		case $name in
		flash)
			nullb_create nullb_flash 100000 400 "$range"
			wb_device /dev/nullb_flash flash "$BENCH_BITMAPS"
			nullb_remove nullb_flash
			;;
		nvme)
			nullb_create nullb_nvme 20000 2000 "$range"
			wb_device /dev/nullb_nvme nvme "$BENCH_BITMAPS"
			nullb_remove nullb_nvme
			;;
		virtio)
			if [ -b /dev/vda ]; then
				wb_device /dev/vda virtio "$BENCH_VIRTIO_BITMAPS"
			else
				say "no virtio disk attached, skipping it"
			fi
			;;
		*) die "unknown device $name" ;;
		esac
	done
}
