# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# out, zsys and the helpers come from lib.sh and writeback.sh:
# shellcheck disable=SC2154
#
# Suite "memory": what a driver keeps in RAM besides the data. A device of
# BENCH_MEM_DISK_MB over a backing device of BENCH_MEM_BD_MB (null_blk,
# memory backed: only written blocks take RAM), BENCH_MEM_FILL_MB of the
# benchmark data written, then all of it marked idle and written back.
# Ours' metadata comes from debugfs metadata (slot table, backing maps,
# packing state), read after disksize and again after the writeback; stock
# has no such file, so the report derives stock's from its layout (16
# bytes per slot, as pahole reads them, and one bitmap bit per block).
# mem_used_total (mm_stat) is read after the fill. Records go to
# $out/memory.txt: driver, run, the three metadata byte counts (- for
# stock) before and after the writeback, mem_used_total and
# orig_data_size in bytes.

# Usage: memory_meta; "table maps pack" of debugfs metadata, or "- - -"
memory_meta() {
	local f=/sys/kernel/debug/zram/zram0/metadata

	if [ -r "$f" ]; then
		awk '{ v[$1] = $2 } END { print v["slot_table"], v["backing_maps"], v["packing"] }' "$f"
	else
		echo "- - -"
	fi
}

# One driver, one run. Usage: memory_case DRIVER RUN
memory_case() {
	local drv=$1 run=$2 mm t m p tw mw pw

	load_driver "$drv"
	set_knob "$zsys/backing_dev" /dev/nullb_mem
	set_strategy_early "$drv"
	set_knob "$zsys/disksize" "${BENCH_MEM_DISK_MB}M"
	set_strategy "$drv"
	read -r t m p < <(memory_meta)
	fill /dev/zram0 "${BENCH_MEM_FILL_MB}M"
	read -r -a mm <"$zsys/mm_stat"
	set_knob "$zsys/idle" all
	set_knob "$zsys/writeback" idle
	read -r tw mw pw < <(memory_meta)
	record memory.txt "driver=$drv run=$run table=$t maps=$m pack=$p" \
		"table_wb=$tw maps_wb=$mw pack_wb=$pw" \
		"mem_used=${mm[2]} orig_data=${mm[0]} bd_count=$(bd_count)"
	say "memory $drv run $run: metadata $t $m $p (after writeback" \
		"$tw $mw $pw), mem_used_total ${mm[2]} for ${mm[0]} bytes"
	unload_driver
}

suite_memory() {
	local run drv drivers

	: >"$out/memory.txt"
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug
	drivers=$(usable_drivers "$BENCH_MEM_DRIVERS")
	nullb_create nullb_mem 20000 0 "$BENCH_MEM_BD_MB"
	for run in $(seq 1 "$BENCH_RUNS"); do
		# shellcheck disable=SC2086 # a list of words
		for drv in $(rotate_words $((run - 1)) $drivers); do
			memory_case "$drv" "$run"
		done
	done
	nullb_remove nullb_mem
}
