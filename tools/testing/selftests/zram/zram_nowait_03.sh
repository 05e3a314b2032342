#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Submission does not wait for a slow backing device: slots written back to
# a null_blk that completes every request after 200 ms are read with fio's
# io_uring engine (O_DIRECT). A submission that waited for the device would
# take at least 200 ms; the test only asks the submission latency (slat)
# p99 to stay under half of that, a bound no scheduling noise under
# QEMU/TCG on a busy host comes near, while the completion latency shows
# the slow device. A behaviour check, not a performance claim.
#
# Stock zram passes too: io_uring hands its EOPNOTSUPP bios to a worker
# without waiting either.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_nullb 16 irqmode=2 completion_nsec=200000000 ||
	ktap_skip_all "cannot create a null_blk with 200 ms completions"

work=$(mktemp -d /tmp/zram-nowait.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
json=$work/fio.json
pages=256

zram_require_fio_uring "$NULLB"

ktap_plan 6

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 "$pages" random || ktap_bail "cannot write"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
ktap_eq "setup: all $pages pages on the slow backing device" "$(bd_count)" "$pages"

# slow_reads DEV: the measured job; JSON in $json, fio's status
slow_reads() {
	fio --name=slow-reads --filename="$1" --ioengine=io_uring --direct=1 \
		--rw=randread --bs=4k --size=$((pages * 4))k --iodepth=8 \
		--slat_percentiles=1 --clat_percentiles=1 --percentile_list=99 \
		--output-format=json --output="$json" >"$work/fio.err" 2>&1
}

bound=100000000
reads_before=$(bd_reads)
slow_reads "$ZRAM_DEV"
fio_rc=$?
sed 's/^/# fio: /' "$work/fio.err" | head -10
slat_p99=$(zram_fio_json "$json" read slat_p99)
slat_max=$(zram_fio_json "$json" read slat_max)
clat_mean=$(zram_fio_json "$json" read clat_mean)
clat_mean=${clat_mean%.*}
ktap_info "slat p99 ${slat_p99:-?} ns (max ${slat_max:-?}), clat mean" \
	"${clat_mean:-?} ns, backing reads $(($(bd_reads) - reads_before))"

ktap_eq "fio exits 0" "$fio_rc" 0
ktap_eq "fio reports no error" "$(zram_fio_json "$json" job error)" 0
ktap_check "every read went to the backing device" \
	[ "$(($(bd_reads) - reads_before))" -ge "$pages" ]
ktap_check "submission latency p99 < $((bound / 1000)) us" \
	[ "${slat_p99:-999999999}" -lt "$bound" ]
ktap_check "completion latency mean >= 160 ms (the slow device)" \
	[ "${clat_mean:-0}" -ge 160000000 ]

ktap_finish
