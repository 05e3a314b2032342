#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The swap job (make run JOB=swap), in the test VM: for each driver, zram0
# is the only swap device, with a virtio-blk backing device of its own
# (disk serial "zback-<driver>"); a workload (zram_memfill) fills FILL_MB
# of anonymous memory with a pattern naming every page inside a memory
# cgroup limited to LIMIT_MB, so most of it is swapped out to zram; all
# pages are marked idle and written back; the workload re-reads and
# verifies every page under the limit; swapoff, with the limit lifted,
# brings everything back and every page is verified again; the
# workload's checksum of its memory after each verification must equal
# the one of the fill. Prints mm_stat/bd_stat and the checksums along the
# way and one table of both drivers' times.
#
# Environment: ZRAM=ours|stock (the driver whose result is the verdict,
# default ours), DRIVERS (the drivers to run, in order, default
# "stock ours"), FILL_MB (256), LIMIT_MB (64), DISKSIZE (1G), ZRAM_KO.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
selftests=$(cd "$here/../../selftests/zram" && pwd)
verdict_driver=${ZRAM:-ours}
drivers=${DRIVERS:-stock ours}
fill_mb=${FILL_MB:-256}
limit_mb=${LIMIT_MB:-64}
disksize=${DISKSIZE:-1G}
pages=$((fill_mb * 256))

# the selftests' helpers: memory cgroup, swapon, the workload
# shellcheck source=../../selftests/zram/zram_lib.sh
. "$selftests/zram_lib.sh"
ZRAM_SYS=/sys/block/zram0
ZRAM_DEV=/dev/zram0

t_start=$(zram_now)
say() { printf '[swap-job %7.1fs] %s\n' "$(zram_since "$t_start")" "$*"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
pages_mib() { awk -v p="$1" 'BEGIN { printf "%.1f MiB", p * 4096 / 1048576 }'; }

show_stats() {
	say "$1 mm_stat: $(cat "$ZRAM_SYS/mm_stat")"
	say "$1 bd_stat: $(bd_stat)"
	say "$1 memory.current $(mib "$(cat "$MEMCG/memory.current")"), memory.swap.current $(mib "$(cat "$MEMCG/memory.swap.current")")"
}

# the last verification's checksum is the fill's
same_sum() {
	[ -n "$MEMFILL_SUM" ] && [ "$MEMFILL_SUM" = "$MEMFILL_FILL_SUM" ] && return 0
	say "checksum $MEMFILL_SUM differs from the fill's $MEMFILL_FILL_SUM"
	return 1
}

declare -A result t_fill t_wb wb_pages t_reread reread_bd t_swapoff check

# run_driver DRIVER: one complete run; fills the tables above.
run_driver() {
	local drv=$1 back t stored reads0 ok=1

	result[$drv]=FAILED
	say "==== $drv zram: swap of $fill_mb MiB in a $limit_mb MiB memory cgroup"
	"$here/zram-load.sh" "$drv" || { say "cannot load the $drv driver"; return 1; }
	back=$("$here/disk-by-serial.sh" "zback-$drv") || { say "no disk zback-$drv"; return 1; }
	zram_wait_blockdev "$back" || { say "$back did not appear"; return 1; }
	echo "$back" >"$ZRAM_SYS/backing_dev" || { say "cannot set backing_dev"; return 1; }
	echo "$disksize" >"$ZRAM_SYS/disksize" || { say "cannot set disksize"; return 1; }
	zram_zswap_off
	zram_swapon "$ZRAM_DEV" || { say "swapon failed"; return 1; }
	say "swap on $ZRAM_DEV ($disksize, $(cat "$ZRAM_SYS/comp_algorithm")), backing device $back"
	if ! zram_require_memcg || ! zram_memcg "$limit_mb"; then
		say "cannot create a memory cgroup (cgroup v2 memory controller)"
		return 1
	fi

	t=$(zram_now)
	zram_memfill_start "$MEMCG" "$fill_mb"
	t_fill[$drv]=$(zram_since "$t")
	say "workload: $MEMFILL_REPLY in ${t_fill[$drv]} s, checksum $MEMFILL_FILL_SUM"
	[ "$MEMFILL_REPLY" = "filled $pages pages" ] || { say "the workload did not fill"; return 1; }
	show_stats "after fill:"
	stored=$(($(zram_field mm_stat 1) / 4096))
	say "zram holds $(pages_mib "$stored") of the workload's $fill_mb MiB"

	echo all >"$ZRAM_SYS/idle" || { say "cannot mark pages idle"; return 1; }
	t=$(zram_now)
	echo idle >"$ZRAM_SYS/writeback" || { say "writeback failed"; ok=0; }
	t_wb[$drv]=$(zram_since "$t")
	wb_pages[$drv]=$(bd_writes)
	say "writeback: ${wb_pages[$drv]} pages in ${t_wb[$drv]} s"
	show_stats "after writeback:"
	[ "$(bd_count)" -ge $((stored * 9 / 10)) ] || { say "fewer than 90% of the stored pages written back"; ok=0; }

	reads0=$(bd_reads)
	t=$(zram_now)
	zram_memfill_cmd verify
	t_reread[$drv]=$(zram_since "$t")
	reread_bd[$drv]=$(($(bd_reads) - reads0))
	check[$drv]="fill: checksum $MEMFILL_FILL_SUM; re-read: $MEMFILL_REPLY, checksum $MEMFILL_SUM"
	say "re-read: $MEMFILL_REPLY in ${t_reread[$drv]} s, ${reread_bd[$drv]} pages from the backing device, checksum $MEMFILL_SUM"
	[ "$MEMFILL_REPLY" = "verified $pages pages, 0 bad" ] || ok=0
	same_sum || ok=0
	show_stats "after re-read:"

	echo max >"$MEMCG/memory.max"
	t=$(zram_now)
	swapoff "$ZRAM_DEV" || { say "swapoff failed"; ok=0; }
	t_swapoff[$drv]=$(zram_since "$t")
	say "swapoff in ${t_swapoff[$drv]} s"
	zram_memfill_cmd verify
	check[$drv]+="; after swapoff: $MEMFILL_REPLY, checksum $MEMFILL_SUM"
	say "after swapoff: $MEMFILL_REPLY, checksum $MEMFILL_SUM"
	[ "$MEMFILL_REPLY" = "verified $pages pages, 0 bad" ] || ok=0
	same_sum || ok=0
	show_stats "after swapoff:"

	[ "$ok" = 1 ] && result[$drv]=PASS
	return 0
}

for drv in $drivers; do
	run_driver "$drv"
	zram_run_undo
	echo 1 >"$ZRAM_SYS/reset" 2>/dev/null
done

row() { printf '%-34s' "$1"; shift; printf ' %14s' "$@"; echo; }
echo "================ swap job summary ================"
echo "workload: $fill_mb MiB of anonymous memory in a $limit_mb MiB memory cgroup, zram disksize $disksize, virtio-blk backing device"
hdr=()
for drv in $drivers; do hdr+=("$drv"); done
row "" "${hdr[@]}"
for what in fill wb_pages wb reread reread_bd swapoff result; do
	vals=()
	for drv in $drivers; do
		case $what in
		fill) vals+=("${t_fill[$drv]:--} s") ;;
		wb_pages) vals+=("${wb_pages[$drv]:--}") ;;
		wb) vals+=("${t_wb[$drv]:--} s") ;;
		reread) vals+=("${t_reread[$drv]:--} s") ;;
		reread_bd) vals+=("${reread_bd[$drv]:--}") ;;
		swapoff) vals+=("${t_swapoff[$drv]:--} s") ;;
		result) vals+=("${result[$drv]}") ;;
		esac
	done
	case $what in
	fill) row "fill (swap-out under the limit)" "${vals[@]}" ;;
	wb_pages) row "pages written back" "${vals[@]}" ;;
	wb) row "echo idle > writeback" "${vals[@]}" ;;
	reread) row "re-read + verify (swap-in)" "${vals[@]}" ;;
	reread_bd) row "  pages read from backing dev" "${vals[@]}" ;;
	swapoff) row "swapoff" "${vals[@]}" ;;
	result) row "data check" "${vals[@]}" ;;
	esac
done
for drv in $drivers; do
	echo "check $drv: ${check[$drv]:-not run}"
done
echo "total wall time: $(zram_since "$t_start") s"
echo "=================================================="

if [ "${result[$verdict_driver]:-}" != PASS ]; then
	say "FAILED: $verdict_driver zram"
	exit 1
fi
say "PASS ($verdict_driver zram)"
