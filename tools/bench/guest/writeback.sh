# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys, fio_data and the helpers come from lib.sh:
# shellcheck disable=SC2154
#
# Suite "writeback": idle writeback of BENCH_MB of ~50% compressible data to
# a backing device, fresh or fragmented bitmap, per driver strategy.
# Sourced by bench.sh after lib.sh. Records go to $out/writeback.txt, fio
# JSON of the device's own bandwidth to $out/devbw-DEVICE.json.

# A memory-backed null_blk disk /dev/NAME completing from a timer, made
# through configfs by zram_sys.sh.
# QUEUE_DEPTH is the commands the device has in flight at most (null_blk's
# hw_queue_depth, default 64).
# Usage: nullb_create NAME COMPLETION_NSEC MBPS SIZE_MB [LOGICAL_BLOCK_BYTES
#        [QUEUE_DEPTH]]
nullb_create() {
	zram_nullb_load || die "cannot load null_blk"
	zram_nullb_create "$1" "$4" "blocksize=${5:-4096}" irqmode=2 \
		"completion_nsec=$2" "mbps=$3" "hw_queue_depth=${6:-64}" ||
		die "cannot create null_blk $1"
}

nullb_remove() {
	zram_nullb_remove "$1" || die "cannot remove null_blk $1"
}

# The device's own sequential write bandwidth. A first pass over the whole
# range the cases use preconditions it (allocates null_blk pages or the host
# file's blocks), so every case overwrites; the second pass, time based
# (BENCH_DEVBW_SECS) over the same range, is measured. Under TCG fio itself
# is CPU bound, so a driver may beat this number.
# Usage: dev_bandwidth DEV NAME SIZE_MB
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
# Usage: timed_writeback [enospc-ok]
timed_writeback() {
	local TIMEFORMAT='%3R %3U %3S' tf=/tmp/bench-time

	echo all >"$zsys/idle" || die "echo all > idle failed"
	if ! { time echo idle >"$zsys/writeback"; } 2>"$tf"; then
		if [ "${1:-}" != enospc-ok ] ||
			! grep -q 'No space left' "$tf"; then
			cat "$tf" >&2
			die "echo idle > writeback failed"
		fi
	fi
	tail -n 1 "$tf"
}

# Discards the slots a full backing device left in RAM (listed without
# the w flag in debugfs block_state), so that only the holes made next
# are left to write back. Prints how many there were.
discard_unwritten() {
	local idx n=0

	while read -r idx; do
		blkdiscard -o $((idx * 4096)) -l 4096 /dev/zram0 ||
			die "cannot discard page $idx"
		n=$((n + 1))
	done < <(awk '$3 !~ /w/ { print $1 }' "$zdbg/block_state")
	echo "$n"
}

# Backing device size in MiB: twice the data plus 1 MiB, the size the
# fragmented setup fills completely.
bd_mb() {
	echo $((2 * BENCH_MB + 1))
}

# zram disk size in KiB: one 4 KiB page less than the backing device, since
# stock never uses block 0.
zram_kib() {
	echo $(($(bd_mb) * 1024 - 4))
}

# Brings zram0 into the bitmap state to test and leaves BENCH_MB of idle
# data in RAM. fragmented: the whole disk (2x the data + 1 MiB) written and
# written back, which fills every block of the backing device, then every
# odd page of the first 2x overwritten, which frees every other block of
# its run, and the last page discarded (one spare block). The timed
# writeback can then only fill those holes: with free space left behind
# the run, a next-fit allocator would use that first. random: the same,
# but a random half of the pages of the first 2x is overwritten (fio's
# random map hits each page once, seeded), which leaves free runs of mixed
# lengths, most of them short, as slots freed in any order do.
# Some drivers stop with ENOSPC a few pages short of a full device; those
# pages are discarded. ours-packed would pack the setup data into half the
# device, and a block is only freed with all the objects in it: its setup
# writes incompressible data instead (whole pages, a block each), which
# leaves the same bitmap; the holes get the benchmark data as for the
# others. stock-packed writes each object to a block of its own, so its
# setup needs no such data. Prints the setup writeback's wall time and the
# number of pages discarded (0 0 for fresh).
# Usage: prepare_bitmap BITMAP DRIVER
prepare_bitmap() {
	local bitmap=$1 drv=$2 t pages=$((BENCH_MB * 256)) setup_pages kib
	local aligned left
	local -a holes fill_data=("${fio_data[@]}")

	if [ "$bitmap" = fresh ]; then
		fill /dev/zram0 "${BENCH_MB}M"
		echo 0 0
		return
	fi
	kib=$(zram_kib)
	aligned=$((kib / 128 * 128))
	case $drv in
	ours-packed*)
		fill_data=(--randseed=20261129 --buffer_compress_percentage=0
			--refill_buffers --eta=never)
		;;
	esac
	fill /dev/zram0 "${aligned}k"
	fill /dev/zram0 "$((kib - aligned))k" "${aligned}k" 4k
	# shellcheck disable=SC2034 # read by fill() (dynamic scope)
	fill_data=("${fio_data[@]}")
	t=$(timed_writeback enospc-ok)
	left=$(discard_unwritten)
	# One spare block at the end: stock takes a block before it looks at
	# a slot, so with no free block left after the last hole it fails
	# with ENOSPC on the first written-back slot that follows.
	blkdiscard -o $((kib * 1024 - 4096)) -l 4096 /dev/zram0 ||
		die "cannot discard the last page"
	setup_pages=$(bd_count)
	need_blockdev /dev/zram0
	case $bitmap in
	fragmented)
		holes=(--rw=write:4k --offset=4k
			--size=$((2 * BENCH_MB * 1024 - 4))k)
		;;
	random)
		holes=(--rw=randwrite --offset=0 --size=$((2 * BENCH_MB))M
			--io_size="${BENCH_MB}M")
		;;
	*) die "unknown bitmap state $bitmap" ;;
	esac
	fio --name=holes --filename=/dev/zram0 "${holes[@]}" --bs=4k \
		--direct=1 --ioengine=psync "${fio_data[@]}" \
		--output-format=terse >/dev/null || die "fio hole punching failed"
	[ "$(bd_count)" = $((setup_pages - pages)) ] ||
		die "fragmented setup: bd_count $(bd_count)," \
			"expected $((setup_pages - pages))"
	echo "${t%% *} $left"
}

# One case. Usage: wb_case DEV DEVICE_NAME BITMAP DRIVER RUN
wb_case() {
	local dev=$1 name=$2 bitmap=$3 drv=$4 run=$5
	local setup_s left bd0 c0 c1 t wall usr sys

	load_driver "$drv"
	set_knob "$zsys/backing_dev" "$dev"
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "$(($(zram_kib) * 1024))"
	set_strategy "$drv"
	t=$(prepare_bitmap "$bitmap" "$drv")
	read -r setup_s left <<<"$t"
	bd0=$(bd_writes)
	c0=$(cpu_sys_ticks)
	t=$(timed_writeback)
	c1=$(cpu_sys_ticks)
	read -r wall usr sys <<<"$t"
	record writeback.txt "device=$name bitmap=$bitmap driver=$drv run=$run" \
		"wall_s=$wall sys_s=$sys user_s=$usr" \
		"sys_all_s=$(((c1 - c0) * 10))e-3 bd_writes=$(($(bd_writes) - bd0))" \
		"pages=$((BENCH_MB * 256)) setup_wb_s=$setup_s" \
		"setup_discarded=$left $(strategy_values)"
	say "writeback $name $bitmap $drv run $run: wall ${wall}s sys ${sys}s"
	unload_driver
}

# Prints the words of LIST rotated left by N: rotate_words N LIST...
rotate_words() {
	local n=$1
	local -a w

	shift
	w=("$@")
	n=$((n % ${#w[@]}))
	echo "${w[@]:n}" "${w[@]:0:n}"
}

# All cases on one backing device; runs interleave the drivers so drift
# over the boot hits all of them alike, and each run rotates their order
# (run 1: stock first, run 2: the second driver first, ...) so that none
# always follows the same one. DRIVERS run on every bitmap, MORE_DRIVERS
# on those that BENCH_MORE_CASES names for this device.
# Usage: wb_device DEV NAME BITMAPS DRIVERS MORE_DRIVERS
wb_device() {
	local dev=$1 name=$2 bitmaps=$3 bitmap drv run sectors drivers

	read -r sectors <"/sys/class/block/${dev#/dev/}/size"
	[ "$sectors" = $(($(bd_mb) * 2048)) ] ||
		die "$dev has $sectors sectors, the cases need $(bd_mb) MiB"
	dev_bandwidth "$dev" "$name" "$(bd_mb)"
	for bitmap in $bitmaps; do
		drivers=$4
		[[ " $BENCH_MORE_CASES " != *" $name/$bitmap "* ]] ||
			drivers+=" $5"
		[ -n "${drivers// /}" ] || continue
		for run in $(seq 1 "$BENCH_RUNS"); do
			# shellcheck disable=SC2086 # a list of words
			for drv in $(rotate_words $((run - 1)) $drivers); do
				wb_case "$dev" "$name" "$bitmap" "$drv" "$run"
			done
		done
	done
}

suite_writeback() {
	local name range drivers more

	range=$(bd_mb)
	drivers=$(usable_drivers "$BENCH_DRIVERS")
	more=$(usable_drivers "$BENCH_MORE_DRIVERS")
	for name in $BENCH_DEVICES; do
		case $name in
		flash)
			nullb_create nullb_flash 100000 400 "$range"
			wb_device /dev/nullb_flash flash "$BENCH_BITMAPS" \
				"$drivers" "$more"
			nullb_remove nullb_flash
			;;
		nvme)
			nullb_create nullb_nvme 20000 2000 "$range"
			wb_device /dev/nullb_nvme nvme "$BENCH_BITMAPS" \
				"$drivers" "$more"
			nullb_remove nullb_nvme
			;;
		virtio)
			if [ -b /dev/vda ]; then
				wb_device /dev/vda virtio \
					"$BENCH_VIRTIO_BITMAPS" "$drivers" "$more"
			else
				say "no virtio disk attached, skipping it"
			fi
			;;
		*) die "unknown device $name" ;;
		esac
	done
}
