# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the guest side of the zram benchmark. Source it.
# Environment (set by tools/bench/run.sh):
#   BENCH_OUT       results folder (default /out)
#   BENCH_STOCK_AS_OURS=1  load stock zram.ko where "ours" is asked for
#                   (development run before our module exists)
#   ZRAM_KO         our module (default /repo/drivers/block/zram/zram.ko)

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm_guest=/repo/tools/testing/vm/guest
out=${BENCH_OUT:-/out}
zsys=/sys/block/zram0
zdbg=/sys/kernel/debug/zram/zram0
# every fio run writes the same data: fixed seed, ~50% compressible 4 KiB
fio_data=(--randseed=20261129 --buffer_compress_percentage=50
	--refill_buffers --buffer_compress_chunk=4k --eta=never)
export bench_dir

# null_blk through configfs and the bd_stat fields (bd_count, bd_reads,
# bd_writes of $ZRAM_SYS): the selftests' helpers
# shellcheck source=../../testing/selftests/zram/zram_sys.sh
. "$bench_dir/../../testing/selftests/zram/zram_sys.sh"
ZRAM_SYS=$zsys

say() { printf '[bench %6.1fs] %s\n' "$(uptime_s)" "$*"; }
die() { say "error: $*" >&2; exit 1; }

uptime_s() {
	local up _

	read -r up _ </proc/uptime
	echo "$up"
}

# Waits for a block device node; fio would otherwise benchmark a tmpfs file.
need_blockdev() {
	zram_wait_blockdev "$1" 10 || die "$1 is not a block device"
}

# Appends one key=value record line to the results file $out/$1.
record() {
	local file=$1

	shift
	echo "$*" >>"$out/$file"
}

# Sum of system+irq+softirq jiffies over all CPUs (USER_HZ ticks).
cpu_sys_ticks() {
	local _cpu _user _nice sys _idle _iowait irq softirq _rest

	read -r _cpu _user _nice sys _idle _iowait irq softirq _rest </proc/stat
	echo $((sys + irq + softirq))
}

# Loads a driver: stock, ours (both with their defaults). Unloads any zram
# first (zram-load.sh does rmmod), so every case starts from a fresh module.
load_driver() {
	local drv=$1

	case $drv in
	stock) "$vm_guest/zram-load.sh" stock >/dev/null ;;
	ours | ours-upstream-like | ours-packed)
		if [ "${BENCH_STOCK_AS_OURS:-0}" = 1 ]; then
			"$vm_guest/zram-load.sh" stock >/dev/null
		else
			"$vm_guest/zram-load.sh" ours >/dev/null
		fi
		;;
	*) die "unknown driver $drv" ;;
	esac || die "cannot load the $drv driver"
	need_blockdev /dev/zram0
}

unload_driver() {
	if [ -d /sys/module/zram ]; then
		rmmod zram || die "cannot unload zram"
	fi
}

# Writes a value to a knob; fails loudly so a missing knob never goes unseen.
set_knob() {
	local path=$1 value=$2

	[ -e "$path" ] || die "knob $path does not exist"
	echo "$value" >"$path" || die "cannot write '$value' to $path"
}

# Configures what a driver strategy needs before disksize.
#   ours-packed: compressed_writeback (packed compressed objects)
set_strategy_early() {
	local drv=$1

	[ "$drv" = ours-packed ] || return 0
	if [ "${BENCH_STOCK_AS_OURS:-0}" = 1 ]; then
		say "note: stock as ours-packed, no compressed_writeback"
		return 0
	fi
	set_knob "$zsys/compressed_writeback" 1
}

# Configures the writeback strategy of the loaded driver (after disksize).
#   stock, ours, ours-packed: defaults
#   ours-upstream-like: one page per bio, 32 bios in flight (upstream 6.19)
# The debugfs knob name comes from BENCH_UL_BIO_KNOB (default: the first of
# wb_max_bio_pages, max_bio_pages, wb_bio_pages found in debugfs; our
# driver creates it when the backing device is attached).
set_strategy() {
	local drv=$1 knob=${BENCH_UL_BIO_KNOB:-} k

	[ "$drv" = ours-upstream-like ] || return 0
	if [ "${BENCH_STOCK_AS_OURS:-0}" = 1 ]; then
		say "note: stock as ours-upstream-like, no knobs to set"
		return 0
	fi
	if [ -z "$knob" ]; then
		for k in wb_max_bio_pages max_bio_pages wb_bio_pages; do
			if [ -e "$zdbg/$k" ]; then
				knob=$k
				break
			fi
		done
	fi
	[ -n "$knob" ] || die "no bio-size knob in $zdbg (set BENCH_UL_BIO_KNOB)"
	set_knob "$zdbg/$knob" 1
	set_knob "$zsys/writeback_batch_size" 32
}

# fio sequential direct writes of the benchmark data, 128 KiB each unless
# BS is given. fio rounds SIZE down to a multiple of BS. A caller may set
# the array fill_data (dynamic scope) to write other data.
# Usage: fill DEV SIZE [OFFSET [BS]] (fio units: 64M, 1020k)
fill() {
	local -a data=("${fio_data[@]}")

	[ -z "${fill_data+set}" ] || data=("${fill_data[@]}")
	need_blockdev "$1"
	fio --name=fill --filename="$1" --rw=write --bs="${4:-128k}" \
		--direct=1 --ioengine=psync --offset="${3:-0}" --size="$2" \
		"${data[@]}" --output-format=terse >/dev/null ||
		die "fio fill of $1 failed"
}

# Prints the writeback knobs in effect as key=value (- when absent).
strategy_values() {
	local bio=- batch=- packed=-

	[ ! -r "$zdbg/wb_max_bio_pages" ] || read -r bio <"$zdbg/wb_max_bio_pages"
	[ ! -r "$zsys/writeback_batch_size" ] ||
		read -r batch <"$zsys/writeback_batch_size"
	[ ! -r "$zsys/compressed_writeback" ] ||
		read -r packed <"$zsys/compressed_writeback"
	echo "wb_max_bio_pages=$bio writeback_batch_size=$batch" \
		"compressed_writeback=$packed"
}
