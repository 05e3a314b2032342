#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How many writeback bios are in flight on the backing device: at most 3/4
# of its queue depth (nr_requests, here the null_blk's 64 tags: no I/O
# scheduler), however large writeback_batch_size is, so reads still find
# a free request; and none of them throttled by the device's write
# throttling (blk-wbt), which would count them in its debugfs inflight.
# The backing device is filled with written-back pages, every other one
# is discarded, and new idle pages go into the single-block holes: each
# request is several one-block bios, so the cap is reached in the middle
# of a request. The device completes each request 3 s after it was
# issued, so that a slow host (a debug kernel beside other VMs) issues
# the cap's last write before the first completes. With
# writeback_batch_size above the cap, exactly the cap is in flight at
# once, first with wbt off (so that wbt's own limit, which may also
# reach 3/4 of the queue, cannot stand in for the driver's), then
# with wbt on and watched. Each time the data reads back intact. Stock
# issues its bios as buffered writes, which wbt tracks and throttles.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
full=255
qd=64
zram_nullb 1 irqmode=2 completion_nsec=3000000000 "hw_queue_depth=$qd" \
	no_sched=1 || ktap_skip_all "cannot create a null_blk without a scheduler"
nb=$(basename "$NULLB")
inflight=/sys/block/$nb/inflight
[ -r "$inflight" ] || ktap_skip_all "no $inflight"
depth=$(cat "/sys/block/$nb/queue/nr_requests") ||
	ktap_skip_all "no nr_requests for $nb"
[ "$depth" = "$qd" ] ||
	ktap_skip_all "$nb has nr_requests $depth, not its $qd tags"
cap=$((3 * depth / 4))
batch=$((cap + 8))
new=$((batch + 8))
pages=$((256 + new))
# a request waits 3 s on the device, more when the host is slow
echo 30000 2>/dev/null >"/sys/block/$nb/queue/io_timeout"
wbt=/sys/block/$nb/queue/wbt_lat_usec
wbt_inflight=/sys/kernel/debug/block/$nb/rqos/wbt/inflight
wbt_usec=$(cat "$wbt" 2>/dev/null) || wbt_usec=0
[ "$wbt_usec" -gt 0 ] || wbt_usec=2000

zram_wb_attach "$NULLB"
zram_attr_exists writeback_batch_size ||
	ktap_skip_all "no writeback_batch_size: one page at a time (stock 6.12)"
work=$(mktemp -d /tmp/zram-wb24.XXXXXX) || ktap_bail "no /tmp"
zram_defer rm -rf "$work"

# writes wbt tracks: the sum of its queues' inflight counts
wbt_tracked() {
	awk '{ n += $3 } END { print n + 0 }' "$wbt_inflight"
}

# read_all: the sum of every page, read in one O_DIRECT read: its bios
# are all issued before it waits, so it waits for the device once
read_all() {
	dd if="$ZRAM_DEV" bs=$((pages * 4))k count=1 iflag=direct 2>/dev/null |
		sha256sum | cut -d' ' -f1
}

# holes: zram0 reset over the null_blk, its blocks filled and every other
# one freed, then $new idle pages made to go into the holes; prints the
# sum of every page. The blocks are filled in one batch (of the default
# size), a wait for the device; the batch size is set for the holes.
holes() {
	echo 1 >"$ZRAM_SYS/reset"
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" && zram_init 16M || return 1
	zram_fill_pages "$ZRAM_DEV" 0 "$full" text || return 1
	echo all >"$ZRAM_SYS/idle"
	[ "$(zram_write "$ZRAM_SYS/writeback" idle)" = OK ] || return 1
	echo "$batch" >"$ZRAM_SYS/writeback_batch_size" || return 1
	zram_discard_alternate "$ZRAM_DEV" "$full" || return 1
	[ "$(bd_count)" = $((full / 2)) ] || return 1
	zram_fill_pages "$ZRAM_DEV" 256 "$new" random || return 1
	# read first: a read makes a slot hot again
	read_all
	echo all >"$ZRAM_SYS/idle"
}

# watch WBT: writes back the new pages while sampling the device; prints
# "RESULT MOST TRACKED": the writeback's result, the most writes in flight
# at once, the most of them wbt tracked (0 when WBT is 0)
watch() {
	local wb i n most=0 tracked=0

	zram_write "$ZRAM_SYS/writeback" idle >"$work/wb" &
	wb=$!
	# the first writes are issued at once; none completes for 3 s
	for ((i = 0; i < 200; i++)); do
		[ "$(zram_disk_inflight "$NULLB" 2)" -gt 0 ] && break
		sleep 0.02
	done
	for ((i = 0; i < 80 && most < cap; i++)); do
		n=$(zram_disk_inflight "$NULLB" 2)
		[ "$n" -gt "$most" ] && most=$n
		if [ "$1" = 1 ]; then
			n=$(wbt_tracked)
			[ "$n" -gt "$tracked" ] && tracked=$n
		fi
		sleep 0.05
	done
	wait "$wb"
	echo "$(cat "$work/wb") $most $tracked"
}

# phase WBT: one writeback into the holes with wbt on (1) or off (0)
phase() {
	local sum res most tracked

	sum=$(holes) || ktap_bail "cannot set up the holes"
	echo "$(($1 ? wbt_usec : 0))" 2>/dev/null >"$wbt"
	read -r res most tracked < <(watch "$1")
	ktap_info "wbt $1: nr_requests $depth, writeback_batch_size $batch:" \
		"most writes in flight $most, most tracked by wbt $tracked"
	ktap_eq "wbt $1: writeback into the holes succeeds, all in them" \
		"$res $(bd_count)" "OK $((full / 2 + new))"
	ktap_eq "wbt $1: 3/4 of nr_requests ($cap) writes in flight at once" \
		"$most" "$cap"
	if [ "$1" = 1 ]; then
		ktap_eq "wbt $1: none of them tracked by wbt" "$tracked" 0
	fi
	zram_drop_caches
	ktap_eq "wbt $1: data intact" "$(read_all)" "$sum"
}

ktap_plan 7
if [ -r "$wbt_inflight" ] && [ -w "$wbt" ]; then
	phase 0
	phase 1
else
	phase 0
	ktap_skip_n 4 "wbt 1" "no blk-wbt debugfs ($wbt_inflight)"
fi
ktap_finish
