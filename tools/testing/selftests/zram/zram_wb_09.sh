#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memory a writeback holds in flight is bounded whatever
# writeback_batch_size says: with the largest value (4294967295) and a
# backing device that completes after 1 s and queues 4096 requests, the
# writeback of 128 MiB must not take more than 48 MiB of free memory
# (the driver's bound is 16 MiB of pages; the rest is slack). Without a
# bound, every page of the writeback would be in flight at once. The
# null_blk keeps no data (memory_backed=0), so only zram's pages count.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_attr_exists writeback_batch_size ||
	ktap_skip_all "no writeback_batch_size attribute (6.12)"
# README, "Expected failures on stock 7.x": not run there, it panics
if [ "${ZRAM_DRIVER:-stock}" = stock ] && [[ $(uname -r) == 7.* ]]; then
	ktap_skip_all "stock bug: 7.x allocates a page per request in flight and runs out of memory"
fi
zram_nullb 256 memory_backed=0 hw_queue_depth=4096 irqmode=2 \
	completion_nsec=1000000000 || ktap_skip_all "cannot create null_blk"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 256M || ktap_skip_all "cannot set disksize"
fio --name=fill --filename="$ZRAM_DEV" --rw=write --bs=64k --size=128M \
	--direct=1 --buffer_compress_percentage=75 --refill_buffers \
	>/dev/null 2>&1 || ktap_skip_all "cannot fill the device"
echo all >"$ZRAM_SYS/idle"

ktap_plan 3
ktap_check "writeback_batch_size 4294967295 accepted" \
	expect_errno OK "$ZRAM_SYS/writeback_batch_size" 4294967295

mem_free() {
	local key val

	while read -r key val _; do
		[ "$key" = MemFree: ] && { echo "$val"; return; }
	done </proc/meminfo
}
sync
echo 3 >/proc/sys/vm/drop_caches
base=$(mem_free)
lowest=$base
zram_write "$ZRAM_SYS/writeback" idle >/tmp/zram-wb9.$$ &
wb=$!
zram_defer rm -f /tmp/zram-wb9.$$
while kill -0 "$wb" 2>/dev/null; do
	m=$(mem_free)
	[ "$m" -lt "$lowest" ] && lowest=$m
	sleep 0.1
done
wait "$wb"
drop=$(((base - lowest) / 1024))
ktap_info "free memory dropped by at most $drop MiB during the writeback"
ktap_eq "the writeback succeeded" "$(cat /tmp/zram-wb9.$$)" OK
ktap_check "memory in flight stayed under 48 MiB" [ "$drop" -lt 48 ]
ktap_finish
