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

# A driver of the bench is a module and its settings, named
# MODULE[-packed][-bN]: MODULE stock (the kernel's own zram.ko) or ours;
# -packed sets compressed_writeback, -bN writeback_batch_size=N; the rest
# is the module's defaults. "stock-packed-b256", say.
driver_re='^(stock|ours)(-packed)?(-b[1-9][0-9]{0,4})?$'

# Usage: driver_module DRIVER; prints stock or ours
driver_module() { echo "${1%%-*}"; }

# Usage: driver_batch DRIVER; prints N of -bN, nothing without it
driver_batch() {
	[[ $1 =~ $driver_re ]] || die "unknown driver $1"
	echo "${BASH_REMATCH[3]#-b}"
}

# Loads a driver's module with its defaults. Unloads any zram first
# (zram-load.sh does rmmod), so every case starts from a fresh module.
load_driver() {
	local mod

	[[ $1 =~ $driver_re ]] || die "unknown driver $1"
	mod=$(driver_module "$1")
	[ "${BENCH_STOCK_AS_OURS:-0}" = 0 ] || mod=stock
	"$vm_guest/zram-load.sh" "$mod" >/dev/null ||
		die "cannot load the $1 driver"
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

# Usage: driver_knobs DRIVER; prints the sysfs attributes its settings need
driver_knobs() {
	[[ $1 != *-packed* ]] || echo compressed_writeback
	[ -z "$(driver_batch "$1")" ] || echo writeback_batch_size
}

# Prints the words of DRIVERS whose module has the attributes their
# settings need (stock of 6.12 has neither compressed_writeback nor
# writeback_batch_size); each other one is left out with a line in
# $out/notes.txt, which the table prints. Usage: usable_drivers DRIVERS
usable_drivers() {
	local drv knob missing ok=

	for drv in $1; do
		missing=
		if [ -n "$(driver_knobs "$drv")" ]; then
			load_driver "$drv"
			for knob in $(driver_knobs "$drv"); do
				[ -e "$zsys/$knob" ] || missing+=" $knob"
			done
			unload_driver
		fi
		if [ -z "$missing" ]; then
			ok+=" $drv"
			continue
		fi
		echo "skipped $drv: the $(driver_module "$drv") zram.ko of" \
			"$(uname -r) has no$missing" >>"$out/notes.txt"
		say "skipping $drv: no$missing" >&2
	done
	echo "${ok# }"
}

# Sets what a driver needs before disksize: compressed_writeback, which
# both modules refuse once the device is initialized.
set_strategy_early() {
	[[ $1 != *-packed* ]] || set_knob "$zsys/compressed_writeback" 1
}

# Sets what a driver needs after disksize: writeback_batch_size, which
# takes effect at the next writeback.
set_strategy() {
	local n

	n=$(driver_batch "$1")
	[ -z "$n" ] || set_knob "$zsys/writeback_batch_size" "$n"
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
