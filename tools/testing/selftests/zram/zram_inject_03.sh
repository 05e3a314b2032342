#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures inside zram under io_uring (REQ_NOWAIT first, then
# the io-wq reissue): fio, marked make-it-fail, reads back and verifies
# 64 KiB blocks written back to a null_blk and blocks still in RAM, and
# rewrites a third region, while 10% of its allocations with zram code on
# the stack fail and idle writebacks run. An I/O either completes with
# the right data or fails with EIO, ENOMEM or EAGAIN: fio finds no wrong
# data, and without faults every block still verifies, the regions fio
# rewrote too once written again; bd_count matches the written-back slots
# and once everything is discarded no block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio blkdiscard
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 32 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"

work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
json=$work/fio.json
stop=$work/stop

zram_require_fio_uring "$NULLB"

# fio_regions NAMES RW [FIO_OPTION...]: io_uring O_DIRECT 64 KiB I/O,
# iodepth 16, one job per named region (a: 0-8M, b: 8-16M, c: 16-24M);
# crc32c headers on writes, verified by reads. JSON in $json.
fio_regions() {
	local names=$1 rw=$2 name args=()

	shift 2
	for name in $names; do
		case $name in
		a) args+=(--name=a --offset=0) ;;
		b) args+=(--name=b --offset=8M) ;;
		c) args+=(--name=c --offset=16M) ;;
		esac
	done
	(cd "$work" && fio --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
		--bs=64k --iodepth=16 --size=8M --rw="$rw" \
		--buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_interval=4k --verify_state_save=0 \
		--do_verify="$([ "$rw" = read ] && echo 1 || echo 0)" \
		--group_reporting --output-format=json --output="$json" \
		"$@" "${args[@]}" >"$work/fio.err" 2>&1)
}

writeback_loop() {
	local runs=0

	while [ ! -e "$stop" ] && [ "$runs" -lt 100 ]; do
		echo all >"$ZRAM_SYS/idle" 2>/dev/null
		echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
		runs=$((runs + 1))
		sleep 0.2
	done
}

ktap_plan 11

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 32M || ktap_bail "cannot set disksize"
fio_regions a write || ktap_bail "cannot write region a"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback" || ktap_bail "writeback failed"
fio_regions "b c" write || ktap_bail "cannot write regions b and c"
ktap_info "setup: $(bd_count) pages written back (region a), b and c in RAM"
zram_fi_alloc_setup null_blk || ktap_bail "cannot set up fault injection"

# reads of a and b, writes to c, by fio marked make-it-fail, 10% failing
zram_fi_count
f0=$FI_COUNT
writeback_loop &
wb_pid=$!
zram_defer kill "$wb_pid"
zram_fi_random 10
zram_fi_task fio --filename="$ZRAM_DEV" --ioengine=io_uring --direct=1 \
	--bs=64k --iodepth=16 --size=8M --verify_state_save=0 \
	--continue_on_error=io --group_reporting --output-format=json \
	--output="$json" \
	--name=a --offset=0 --rw=read --verify=crc32c --verify_interval=4k \
	--do_verify=1 --loops=2 \
	--name=b --offset=8M --rw=read --verify=crc32c --verify_interval=4k \
	--do_verify=1 --loops=2 \
	--name=c --offset=16M --rw=randwrite --verify=0 --loops=2 \
	>"$work/fio.err" 2>&1
fio_rc=$?
zram_fi_random 0
touch "$stop"
wait "$wb_pid"
zram_fi_count
injected=$((FI_COUNT - f0))
err=$(zram_fio_json "$json" job error)
nerr=$(zram_fio_json "$json" job total_err)
ktap_info "fio exit $fio_rc, first error ${err:-?}, $nerr errors, $injected failures injected"
sed 's/^/# fio: /' "$work/fio.err" | head -10

ktap_check "allocation failures were injected" [ "$injected" -gt 0 ]
case ${err:-missing} in
0 | 5 | 11 | 12) ktap_ok "fio's errors, if any: EIO, EAGAIN or ENOMEM" ;;
*) ktap_not_ok "fio's errors, if any: EIO, EAGAIN or ENOMEM (first: ${err:-none})" ;;
esac
if grep -q -E 'verify|bad (magic|header)|crc32c' "$work/fio.err"; then
	ktap_not_ok "no read returned wrong data"
else
	ktap_ok "no read returned wrong data"
fi
ktap_check "bd_count == written-back slots" zram_blocks_consistent

# without faults
fio_regions "a b" read
ktap_eq "regions a and b verify without faults" "$(zram_fio_json "$json" job error)" 0
fio_regions c write
fio_regions c read
ktap_eq "region c verifies once written again" "$(zram_fio_json "$json" job error)" 0
echo all >"$ZRAM_SYS/idle"
ktap_check "writeback without faults succeeds" expect_errno OK "$ZRAM_SYS/writeback" idle
zram_drop_caches
fio_regions "a b c" read
ktap_eq "everything verifies after writeback" "$(zram_fio_json "$json" job error)" 0
ktap_check "bd_count == written-back slots after writeback" zram_blocks_consistent
blkdiscard "$ZRAM_DEV"
ktap_eq "discard of everything frees every block" "$(bd_count)" 0
ktap_eq "orig_data_size 0 after discarding everything" "$(zram_field mm_stat 1)" 0

ktap_finish
