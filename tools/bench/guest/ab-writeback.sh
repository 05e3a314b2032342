#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A quick same-boot A/B of idle writeback, for a question the full bench
# answers too slowly: each driver of AB_DRIVERS on each bitmap of
# AB_BITMAPS, runs interleaved, on the flash-model null_blk of suite
# writeback (100 us timer completions, 400 MB/s). Prints one RESULT line
# per case: wall, user and system seconds of the writer, then bd_stat.
# Run from the host:
#   tools/testing/vm/run.sh --env BENCH_MB=128 \
#       --env AB_DRIVERS="stock ours" --env AB_BITMAPS=fragmented \
#       --out DIR -- /repo/tools/bench/guest/ab-writeback.sh
# Drivers are named as in the bench (lib.sh: stock, ours-packed-b256...).
# Environment: BENCH_MB [32], AB_RUNS [3], AB_DRIVERS ["stock ours"],
# AB_BITMAPS ["fresh fragmented"].

# shellcheck source-path=SCRIPTDIR
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=writeback.sh
. "$(dirname "$0")/writeback.sh"

: "${BENCH_MB:=32}" "${AB_RUNS:=3}" "${AB_DRIVERS:=stock ours}"
: "${AB_BITMAPS:=fresh fragmented}"

# One case: DRIVER on a fresh module and device, BITMAP prepared untimed.
ab_case() {
	local drv=$1 bitmap=$2 run=$3 batch t

	load_driver "$drv"
	set_knob "$zsys/backing_dev" /dev/nullb_flash
	[[ $drv != *-packed* ]] || set_knob "$zsys/compressed_writeback" 1
	batch=$(driver_batch "$drv")
	[ -z "$batch" ] || set_knob "$zsys/writeback_batch_size" "$batch"
	set_knob "$zsys/disksize" "$(($(zram_kib) * 1024))"
	prepare_bitmap "$bitmap" "$drv" >/dev/null
	t=$(timed_writeback)
	say "RESULT $drv $bitmap run $run: $t (wall user sys)" \
		"bd_stat $(cat "$zsys/bd_stat")"
	unload_driver
}

nullb_create nullb_flash 100000 400 "$(bd_mb)"
for run in $(seq "$AB_RUNS"); do
	for drv in $AB_DRIVERS; do
		for bitmap in $AB_BITMAPS; do
			ab_case "$drv" "$bitmap" "$run"
		done
	done
done
nullb_remove nullb_flash
