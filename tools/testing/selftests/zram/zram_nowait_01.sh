#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# REQ_NOWAIT under io_uring: fio random reads and writes (4-64 KiB, so
# multi-page bios, O_DIRECT, crc32c verify) over a zram device whose data
# is partly written back to a memory-backed null_blk (which supports
# nowait), while idle writebacks run in a loop. io_uring issues every bio
# with REQ_NOWAIT first and reissues it whole, from a worker, if it ends
# with BLK_STS_AGAIN: that must stay invisible to the application (fio
# sees no error, no EAGAIN, no short I/O, and every block verifies), and
# the driver's counters must still add up: every written slot (8192,
# zram_scaled) is counted once in orig_data_size, and bd_count matches
# the slots block_state shows as written back.
# Runs on stock zram too (io_uring then falls back on EOPNOTSUPP).

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_nullb 64 || ktap_skip_all "cannot create null_blk"

# each of the two jobs covers job_mb, together all that was written
job_mb=$(zram_scaled 16 4)
fill_mb=$((2 * job_mb))
work=$(mktemp -d /tmp/zram-nowait.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
stop=$work/stop
wb_log=$work/writeback.log

# The writeback loop of the test: mark everything idle and write it back,
# until fio is done.
writeback_loop() {
	local runs=0 fails=0

	while [ ! -e "$stop" ] && [ "$runs" -lt 200 ]; do
		echo all >"$ZRAM_SYS/idle" 2>/dev/null || fails=$((fails + 1))
		echo idle >"$ZRAM_SYS/writeback" 2>/dev/null || fails=$((fails + 1))
		runs=$((runs + 1))
		sleep 0.2
	done
	echo "$runs $fails" >"$wb_log"
}

zram_require_fio_uring "$NULLB"

ktap_plan 11

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 64M || ktap_bail "cannot set disksize"

# fill_mb of half-compressible data, then all of it written back: the
# workload below starts on slots that live on the backing device.
fio --name=fill --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
	--rw=write --bs=64k --size="${fill_mb}M" --buffer_compress_percentage=50 \
	--refill_buffers >/dev/null 2>&1 || ktap_bail "cannot fill the device"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
before=$(bd_writes)
ktap_info "written back before the workload: $before pages"
ktap_check "setup: part of the data is on the backing device" [ "$before" -gt 0 ]

writeback_loop &
wb_pid=$!
zram_defer kill "$wb_pid"

# two jobs on disjoint 16 MiB halves; verify_backlog checks written blocks
# while the workload (and the writebacks) still run, and everything
# written is checked again at the end
fio --name=nowait-rw --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
	--rw=randrw --bsrange=4k-64k --iodepth=16 --numjobs=2 --size="${job_mb}M" \
	--offset_increment="${job_mb}M" --loops=2 --verify=crc32c --verify_backlog=128 \
	--verify_fatal=1 --buffer_compress_percentage=50 --refill_buffers \
	--group_reporting --output-format=json --output="$work/fio.json" \
	>"$work/fio.err" 2>&1
fio_rc=$?
touch "$stop"
wait "$wb_pid"

read -r wb_runs wb_fails <"$wb_log"
ktap_info "writebacks during the workload: $wb_runs, failed writes: $wb_fails," \
	"pages written back meanwhile: $(($(bd_writes) - before))"
sed 's/^/# fio: /' "$work/fio.err" | head -20

ktap_eq "fio exits 0" "$fio_rc" 0
ktap_eq "fio reports no error" "$(zram_fio_json "$work/fio.json" job error)" 0
if grep -q -i -E 'verify|crc32c' "$work/fio.err"; then
	ktap_not_ok "no verify error"
else
	ktap_ok "no verify error"
fi
if grep -q -E 'Resource temporarily unavailable|error=11|err=11' \
	"$work/fio.err" "$work/fio.json"; then
	ktap_not_ok "no EAGAIN reaches the application"
else
	ktap_ok "no EAGAIN reaches the application"
fi
ktap_eq "no short reads" "$(zram_fio_json "$work/fio.json" read short_ios)" 0
ktap_eq "no short writes" "$(zram_fio_json "$work/fio.json" write short_ios)" 0
ktap_check "writebacks ran during the workload" [ "$wb_runs" -gt 0 ]
ktap_eq "every writeback write succeeded" "$wb_fails" 0
ktap_eq "orig_data_size counts each written slot once" \
	"$(zram_field mm_stat 1)" $((fill_mb << 20))
if [ -r "$(zram_block_state_file)" ]; then
	ktap_eq "bd_count matches the written-back slots in block_state" \
		"$(zram_block_state_count w)" "$(bd_count)"
else
	ktap_skip "bd_count matches the written-back slots in block_state" \
		"no debugfs block_state"
fi

ktap_finish
