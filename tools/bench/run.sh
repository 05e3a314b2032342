#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the booted kernel's own zram.ko ("stock") vs ours in one VM
# boot (QEMU/TCG), suites "writeback" (idle writeback to null_blk flash/NVMe
# models and a virtio-blk disk; fresh, fragmented and randomly fragmented
# bitmap), "io" (fio 4 KiB random I/O) and "iowb" (fio 4 KiB random reads
# of written-back data, ours vs ours-packed), "calls" (the same slots
# written back by one writeback call or by many) and "memory" (the
# driver's own metadata and mem_used_total per MiB stored); "wbread"
# (fio random and sequential reads of written-back data, stock, ours and
# both packed) runs only when BENCH_SUITES names it.
# Prints a table, ours' targets against stock met or missed, and, on the
# last line, the path of the JSON results. The table's last line counts the
# kernel reports (WARNING:, BUG:, ...) in the VM's dmesg, which are printed
# above it; when the VM fails, those of its console are counted and printed
# instead.
#
# Usage: tools/bench/run.sh [NAME=VALUE...] [--stock-as-ours] [--quick]
#   Options, in the environment or as arguments (as every VM job takes
#   them: tools/testing/vm/README.md, "Options"; defaults in brackets).
#   KERNEL [debian]  the kernel the VM boots, and so stock: debian (7.3)
#                    or debian-6.12 (whose zram has neither
#                    compressed_writeback nor writeback_batch_size: the
#                    drivers that set them are skipped, with a note)
#   BENCH_STOCK_AS_OURS=1 (or --stock-as-ours)  development run: load
#                    stock zram.ko where ours is asked for
#   BENCH_QUICK=1 (or --quick)  tiny sizes for a smoke test (BENCH_MB=16,
#                    1 run, BENCH_IO_SECS=2, BENCH_IO_MB=32,
#                    BENCH_WBREAD_RUNS=1) unless set otherwise
#   A driver is MODULE[-packed][-bN]: MODULE stock or ours at its
#   defaults, -packed with compressed_writeback=1, -bN with
#   writeback_batch_size=N (stock's default is 32).
#   BENCH_MB [512]       MiB written back per case (fragmented and random:
#                        2x written and written back first)
#   BENCH_RUNS [3]       runs per case of suites writeback and iowb
#   BENCH_DEVBW_SECS [5] fio run measuring each backing device's bandwidth
#   BENCH_SUITES ["writeback io iowb calls memory"]  also: wbread
#   BENCH_DEVICES ["flash nvme virtio"]
#   BENCH_BITMAPS ["fresh fragmented random"]  fragmented: every other
#                        block used; random: a random half of them
#   BENCH_VIRTIO_BITMAPS ["fresh"]  bitmaps on the virtio disk (its
#                        fragmented cases cost ~4 min per run)
#   BENCH_DRIVERS ["stock stock-packed ours ours-packed"]  drivers of
#                        suite writeback, on every case
#   BENCH_MORE_DRIVERS ["stock-b256 stock-packed-b256"]  drivers of suite
#                        writeback on the cases of BENCH_MORE_CASES only
#   BENCH_MORE_CASES ["flash/fresh flash/fragmented"]  DEVICE/BITMAP words
#   BENCH_IO_MB [128]    BENCH_IO_SECS [10]  BENCH_IO_ENGINES ["io_uring psync"]
#   BENCH_IO_RUNS [5]    runs of suite io, its drivers interleaved
#   BENCH_IO_DRIVERS ["stock ours"]  drivers of suite io
#   BENCH_IOWB_DRIVERS ["ours ours-packed"]  drivers of suite iowb
#   BENCH_CALLS_MB [64]  MiB of suite calls (39 or more: its params case
#                        writes the first 9984 pages)
#   BENCH_CALLS_DRIVERS ["stock stock-packed ours ours-packed"]  drivers
#                        of suite calls, BENCH_RUNS runs each
#   BENCH_CALLS_BD_MB [0] MiB of suite calls' backing device (0:
#                        BENCH_CALLS_MB + 1; null_blk allocates only what
#                        is written, so a large one costs its bitmaps only)
#   BENCH_MEM_DISK_MB [1024]  BENCH_MEM_BD_MB [1024]  BENCH_MEM_FILL_MB [64]
#                        suite memory's disksize, backing device and data
#   BENCH_MEM_DRIVERS ["stock stock-packed ours ours-packed"]  drivers of
#                        suite memory, BENCH_RUNS runs each
#   BENCH_IOWB_LBS ["4096 512"]  logical block sizes, in bytes, of suite
#                    iowb's backing device: 4096 as most UFS devices, 512 as
#                    most NVMe drives (where a packed read reads only the
#                    sectors of its object)
#   BENCH_IOWB_MBPS [400] bandwidth cap, in MB/s, of suite iowb's
#                    backing device (null_blk mbps). At 400 the reads are
#                    CPU bound under TCG; a cap below what the CPU reaches
#                    (40, say) makes the device the bottleneck, as it is
#                    on hardware, where a read costs far less CPU.
#                    0: no cap
#   BENCH_IOWB_QD [64] commands suite iowb's backing device has in flight
#                    at most (null_blk hw_queue_depth), each completing
#                    after BENCH_IOWB_NSEC. 1 with 100 us caps it below
#                    10k commands a second whatever their size (about 3.6k
#                    under TCG), below what the CPU reaches: the device is
#                    the bottleneck by its latency, as flash is for random
#                    reads, rather than by its bandwidth
#   BENCH_IOWB_NSEC [100000] latency, in nanoseconds, of each command of
#                    suite iowb's backing device (null_blk completion_nsec)
#   BENCH_IOWB_TRACE [0] 1: suite iowb also counts, per 4 KiB read, the
#                    backing device blocks read, the reads io_uring
#                    handed to its io-wq workers (refused with EAGAIN),
#                    and the bios sent to the backing device and how many
#                    of them it refused for want of a free tag (sent again
#                    from a worker)
#   BENCH_IOWB_PROFILE [0] 1: suite iowb also samples where the CPU time
#                    of each fio run goes (perf, cpu-clock, call graphs;
#                    installs linux-perf and bundles the host's perf for
#                    the guest, tools/bench/perf-bundle.sh); the table gets
#                    the CPU microseconds per read of the read path's
#                    functions, median of the runs. Sampling costs IOPS:
#                    compare drivers within such a run
#   BENCH_WBREAD_RUNS [5]  runs of suite wbread, its drivers rotated per
#                        run; each reads BENCH_IO_MB MiB of data written
#                        back to suite iowb's device model (BENCH_IOWB_NSEC,
#                        BENCH_IOWB_MBPS, BENCH_IOWB_QD; 4 KiB blocks) for
#                        BENCH_IO_SECS per engine and state
#   BENCH_WBREAD_CYCLES [2]  suite wbread's second state: cycles of every
#                        other page discarded, rewritten and written back
#   BENCH_WBREAD_DRIVERS ["stock stock-packed ours ours-packed"]  drivers
#                        of suite wbread
#   BENCH_WBREAD_ENGINES ["rand-uring1 rand-uring2 rand-psync4 seq-psync
#                        seq-uring"]  suite wbread's fio reads: 4 KiB
#                        random by io_uring (iodepth 16, 1 or 2 jobs) or
#                        psync (4 jobs), 128 KiB sequential by psync or
#                        io_uring (iodepth 4) (tools/bench/guest/wbread.sh)
#   TIMEOUT [9000]       seconds before the VM is killed (BENCH_TIMEOUT
#                        is the older name)
#   OUT [.cache/results/bench]  where the raw results, the JSON and the
#                        table go
#   VM_RUN_ARGS          more options for tools/testing/vm/run.sh
#   ZRAM_KO              our module as the host sees it (default: the one
#                        built for KERNEL, tools/build/module.sh)

set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../testing/vm/lib.sh
. "$repo/tools/testing/vm/lib.sh"

die() { echo "[bench] error: $*" >&2; exit 1; }

args=()
for arg in "$@"; do
	case $arg in
	--stock-as-ours) args+=(BENCH_STOCK_AS_OURS=1) ;;
	--quick) args+=(BENCH_QUICK=1) ;;
	-h | --help) vm_usage ;;
	*) args+=("$arg") ;;
	esac
done
vm_options KERNEL BENCH_STOCK_AS_OURS BENCH_QUICK BENCH_MB BENCH_RUNS \
	BENCH_DEVBW_SECS BENCH_SUITES BENCH_DEVICES BENCH_BITMAPS \
	BENCH_VIRTIO_BITMAPS BENCH_DRIVERS BENCH_MORE_DRIVERS BENCH_MORE_CASES \
	BENCH_IO_MB BENCH_IO_SECS BENCH_IO_RUNS \
	BENCH_IO_ENGINES BENCH_IO_DRIVERS BENCH_IOWB_DRIVERS BENCH_IOWB_TRACE \
	BENCH_IOWB_LBS BENCH_IOWB_MBPS BENCH_IOWB_QD BENCH_IOWB_NSEC \
	BENCH_IOWB_PROFILE BENCH_CALLS_MB BENCH_CALLS_DRIVERS \
	BENCH_CALLS_BD_MB BENCH_MEM_DISK_MB BENCH_MEM_BD_MB BENCH_MEM_FILL_MB \
	BENCH_MEM_DRIVERS BENCH_WBREAD_RUNS BENCH_WBREAD_CYCLES \
	BENCH_WBREAD_DRIVERS BENCH_WBREAD_ENGINES TIMEOUT \
	BENCH_TIMEOUT OUT VM_RUN_ARGS ZRAM_KO \
	-- "${args[@]}"
stock_as_ours=${BENCH_STOCK_AS_OURS:-0}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	: "${BENCH_MB:=16}" "${BENCH_RUNS:=1}" "${BENCH_IO_SECS:=2}"
	: "${BENCH_IO_MB:=32}" "${BENCH_IO_RUNS:=1}" "${BENCH_WBREAD_RUNS:=1}"
fi

: "${BENCH_MB:=512}" "${BENCH_RUNS:=3}"
: "${BENCH_SUITES:=writeback io iowb calls memory}"
: "${BENCH_CALLS_MB:=64}" "${BENCH_CALLS_BD_MB:=0}"
: "${BENCH_CALLS_DRIVERS:=stock stock-packed ours ours-packed}"
: "${BENCH_MEM_DISK_MB:=1024}" "${BENCH_MEM_BD_MB:=1024}" "${BENCH_MEM_FILL_MB:=64}"
: "${BENCH_MEM_DRIVERS:=stock stock-packed ours ours-packed}"
: "${BENCH_DEVICES:=flash nvme virtio}"
: "${BENCH_BITMAPS:=fresh fragmented random}"
: "${BENCH_VIRTIO_BITMAPS:=fresh}" "${BENCH_DEVBW_SECS:=5}"
: "${BENCH_DRIVERS:=stock stock-packed ours ours-packed}"
: "${BENCH_MORE_DRIVERS=stock-b256 stock-packed-b256}"
: "${BENCH_MORE_CASES=flash/fresh flash/fragmented}"
: "${BENCH_IOWB_DRIVERS:=ours ours-packed}" "${BENCH_IOWB_LBS:=4096 512}"
: "${BENCH_IOWB_MBPS:=400}" "${BENCH_IOWB_QD:=64}" "${BENCH_IOWB_NSEC:=100000}"
: "${BENCH_IO_MB:=128}" "${BENCH_IO_SECS:=10}" "${BENCH_IO_RUNS:=5}"
: "${BENCH_IO_ENGINES:=io_uring psync}" "${BENCH_IO_DRIVERS:=stock ours}"
: "${TIMEOUT:=${BENCH_TIMEOUT:-9000}}" "${BENCH_IOWB_TRACE:=0}"
: "${BENCH_IOWB_PROFILE:=0}"
: "${BENCH_WBREAD_RUNS:=5}" "${BENCH_WBREAD_CYCLES:=2}"
: "${BENCH_WBREAD_DRIVERS:=stock stock-packed ours ours-packed}"
: "${BENCH_WBREAD_ENGINES:=rand-uring1 rand-uring2 rand-psync4 seq-psync seq-uring}"
vm_kernel
ko=${ZRAM_KO:-$ours_ko}

# A setting the guest would only trip over after booting, maybe an hour
# into the run, is refused here.
# Usage: need_number NAME MIN [MAX]; NAME's value must be a whole number
# from MIN to MAX.
need_number() {
	local v=${!1} max=${3:-999999999}

	if ! [[ $v =~ ^[0-9]{1,9}$ ]] || ((10#$v < $2 || 10#$v > max)); then
		die "$1 must be a whole number from $2 to $max, not '$v'"
	fi
}
# Usage: need_drivers NAME; NAME's value is a list of drivers
# (tools/bench/guest/lib.sh: driver_re).
need_drivers() {
	local w

	for w in ${!1}; do
		[[ $w =~ ^(stock|ours)(-packed)?(-b[1-9][0-9]{0,4})?$ ]] ||
			die "$1: '$w' is no driver (stock or ours, then -packed, -bN)"
	done
}
# Usage: need_words NAME WORD...; NAME's value is a list of those words.
need_words() {
	local w

	for w in ${!1}; do
		[[ " ${*:2} " == *" $w "* ]] ||
			die "$1: '$w' is none of: ${*:2}"
	done
}
for v in BENCH_MB BENCH_RUNS BENCH_DEVBW_SECS BENCH_IO_MB BENCH_IO_SECS \
	BENCH_IO_RUNS BENCH_WBREAD_RUNS BENCH_WBREAD_CYCLES TIMEOUT; do
	need_number "$v" 1
done
need_number BENCH_IOWB_MBPS 0 40960	# null_blk's own limit: 40 GiB/s
need_number BENCH_IOWB_QD 1 10240	# blk-mq's largest tag depth
need_number BENCH_IOWB_NSEC 0
need_number BENCH_CALLS_MB 39 4096
need_number BENCH_CALLS_BD_MB 0 1048576
need_number BENCH_MEM_DISK_MB 1 1048576
need_number BENCH_MEM_BD_MB 1 1048576
need_number BENCH_MEM_FILL_MB 1 "$BENCH_MEM_DISK_MB"
((BENCH_MEM_FILL_MB < BENCH_MEM_BD_MB)) ||
	die "BENCH_MEM_FILL_MB must be below BENCH_MEM_BD_MB (all of it is written back)"
for v in BENCH_QUICK BENCH_STOCK_AS_OURS BENCH_IOWB_TRACE \
	BENCH_IOWB_PROFILE; do
	[[ ${!v:-0} =~ ^[01]$ ]] || die "$v must be 0 or 1, not '${!v}'"
done
need_words BENCH_SUITES writeback io iowb calls memory wbread
need_words BENCH_WBREAD_ENGINES rand-uring1 rand-uring2 rand-psync4 \
	seq-psync seq-uring
need_words BENCH_DEVICES flash nvme virtio
need_words BENCH_BITMAPS fresh fragmented random
need_words BENCH_VIRTIO_BITMAPS fresh fragmented random
need_words BENCH_MORE_CASES {flash,nvme,virtio}/{fresh,fragmented,random}
need_words BENCH_IOWB_LBS 512 1024 2048 4096
for v in BENCH_DRIVERS BENCH_MORE_DRIVERS BENCH_IO_DRIVERS \
	BENCH_IOWB_DRIVERS BENCH_CALLS_DRIVERS BENCH_MEM_DRIVERS \
	BENCH_WBREAD_DRIVERS; do
	need_drivers "$v"
done

if [ "$stock_as_ours" = 0 ] && [ ! -e "$ko" ]; then
	die "our module $ko is not built (make module);" \
		"pass --stock-as-ours for a stock-vs-stock development run"
fi
case $ko in
"$repo"/*) ;;
*) die "ZRAM_KO must be inside the repo (the guest sees it as /repo): $ko" ;;
esac

# Usage: runs_suite SUITE; true when BENCH_SUITES has SUITE
runs_suite() { [[ " $BENCH_SUITES " == *" $1 "* ]]; }

ts=$(date +%Y%m%d-%H%M%S)
outdir=${OUT:-$results_dir/bench}
raw=$outdir/$ts-raw
json=$outdir/bench-$ts.json
txt=$outdir/bench-$ts.txt
mkdir -p "$raw"

vm_args=(--out "$raw" --timeout "$TIMEOUT")
disk=
if runs_suite writeback && [[ " $BENCH_DEVICES " == *" virtio "* ]]; then
	# sparse host file, deleted afterwards; exactly as large as the
	# null_blk disks (the fragmented setup fills the device completely)
	disk=$raw/virtio-backing.img
	vm_args+=(--disk "$disk" --disk-size "$((2 * BENCH_MB + 1))M")
fi
cleanup() { [ -z "$disk" ] || rm -f "$disk"; }
trap cleanup EXIT

envs=()
for v in BENCH_MB BENCH_RUNS BENCH_SUITES BENCH_DEVICES BENCH_BITMAPS \
	BENCH_VIRTIO_BITMAPS BENCH_DEVBW_SECS BENCH_DRIVERS BENCH_MORE_DRIVERS \
	BENCH_MORE_CASES BENCH_IO_MB BENCH_IO_SECS BENCH_IO_RUNS BENCH_IO_ENGINES \
	BENCH_IO_DRIVERS BENCH_IOWB_DRIVERS BENCH_IOWB_TRACE BENCH_IOWB_LBS \
	BENCH_IOWB_MBPS BENCH_IOWB_QD BENCH_IOWB_NSEC BENCH_IOWB_PROFILE \
	BENCH_CALLS_MB BENCH_CALLS_DRIVERS BENCH_CALLS_BD_MB BENCH_MEM_DISK_MB \
	BENCH_MEM_BD_MB BENCH_MEM_FILL_MB BENCH_MEM_DRIVERS BENCH_WBREAD_RUNS \
	BENCH_WBREAD_CYCLES BENCH_WBREAD_DRIVERS BENCH_WBREAD_ENGINES; do
	envs+=(--env "$v=${!v}")
done
if [ "$BENCH_IOWB_PROFILE" != 0 ]; then
	perf_dir=$("$repo/tools/bench/perf-bundle.sh") ||
		die "cannot bundle perf for the guest"
	envs+=(--env "BENCH_PERF_DIR=/repo/${perf_dir#"$repo"/}")
fi
# The guest loads a snapshot, so a rebuild during the run changes nothing.
ko_rev=none
if [ "$stock_as_ours" = 0 ]; then
	cp "$ko" "$raw/zram.ko"
	ko=$raw/zram.ko
	ko_rev=$(git -C "$repo" log -1 --format=%h -- drivers/block/zram)
	[ -z "$(git -C "$repo" status --porcelain -- drivers/block/zram)" ] ||
		ko_rev=$ko_rev-dirty
	ko_rev=$ko_rev/$(sha256sum "$ko" | cut -c1-12)
fi
envs+=(--env "BENCH_STOCK_AS_OURS=$stock_as_ours"
	--env "ZRAM_KO=/repo/${ko#"$repo"/}" --env "BENCH_KO_REV=$ko_rev")

# what runs, suite by suite
plan="suites '$BENCH_SUITES', $BENCH_RUNS runs"
if runs_suite writeback; then
	plan+="; writeback: BENCH_MB=$BENCH_MB, devices '$BENCH_DEVICES',"
	plan+=" bitmaps '$BENCH_BITMAPS' (virtio '$BENCH_VIRTIO_BITMAPS'),"
	plan+=" drivers '$BENCH_DRIVERS', on '$BENCH_MORE_CASES'"
	plan+=" also '$BENCH_MORE_DRIVERS'"
fi
if runs_suite io; then
	plan+="; io: ${BENCH_IO_MB} MiB x ${BENCH_IO_SECS}s, $BENCH_IO_RUNS runs"
fi
if runs_suite iowb; then
	plan+="; iowb: ${BENCH_IO_MB} MiB x ${BENCH_IO_SECS}s, LBS '$BENCH_IOWB_LBS',"
	plan+=" MBPS=$BENCH_IOWB_MBPS QD=$BENCH_IOWB_QD NSEC=$BENCH_IOWB_NSEC"
fi
if runs_suite calls; then
	plan+="; calls: ${BENCH_CALLS_MB} MiB, drivers '$BENCH_CALLS_DRIVERS'"
fi
if runs_suite wbread; then
	plan+="; wbread: ${BENCH_IO_MB} MiB x ${BENCH_IO_SECS}s,"
	plan+=" $BENCH_WBREAD_RUNS runs, $BENCH_WBREAD_CYCLES cycles,"
	plan+=" drivers '$BENCH_WBREAD_DRIVERS', engines '$BENCH_WBREAD_ENGINES',"
	plan+=" MBPS=$BENCH_IOWB_MBPS QD=$BENCH_IOWB_QD NSEC=$BENCH_IOWB_NSEC"
fi
if runs_suite memory; then
	plan+="; memory: ${BENCH_MEM_FILL_MB} of ${BENCH_MEM_DISK_MB} MiB over"
	plan+=" ${BENCH_MEM_BD_MB} MiB, drivers '$BENCH_MEM_DRIVERS'"
	# stock's bytes per slot, for the report (pahole, on the host)
	"$repo/tools/build/slot-size.sh" >"$raw/slot-size.txt" 2>&1 || true
fi
echo "[bench] kernel ${ZRAM_KERNEL:-debian} ($KVER); $plan;" \
	"stock-as-ours=$stock_as_ours; raw results in $raw"
start=$SECONDS
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
if ! "$repo/tools/testing/vm/run.sh" "${vm_args[@]}" "${envs[@]}" \
	${VM_RUN_ARGS:-} -- /repo/tools/bench/guest/bench.sh; then
	# A guest that died (a panic, say) saved no dmesg: its console has
	# its last words.
	splats=$(splat_count "$raw/console.log" 2>/dev/null || true)
	echo "kernel reports on the bench VM's console: ${splats:-0}"
	[ "${splats:-0}" = 0 ] || splat_reports "$raw/console.log" 200
	die "the benchmark VM failed (console: $raw/console.log)"
fi
python3 "$repo/tools/bench/report.py" "$raw" "$json" "$txt"
# A benchmark is no test, but a kernel report during one is never noise:
# the table says how many the VM's dmesg holds, and they are printed.
splats=$(splat_count "$raw/dmesg.txt" || true)
echo "kernel reports in the bench VM's dmesg: $splats" >>"$txt"
[ "$splats" = 0 ] || splat_reports "$raw/dmesg.txt" 200
cat "$txt"
echo "[bench] took $((SECONDS - start)) s; table: $txt"
echo "$json"
