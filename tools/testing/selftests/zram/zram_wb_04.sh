#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two writebacks at once, a reset attempt and overwrites: the second
# writeback either fails with EAGAIN (stock 6.12) or waits and succeeds;
# reset of the open device fails with EBUSY; afterwards every slot is
# exactly once in RAM or on the backing device and data is intact. On
# stock the overwrites race the first writeback; on ours the second
# writeback waits for the first, so they come after both (zram_wb_20
# overwrites slots whose bios are in flight).

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
# 2 ms per backing-device write, so a writeback lasts long enough to race
zram_nullb 16 irqmode=2 completion_nsec=2000000 || ktap_skip_all "cannot create null_blk"
tmp=$(mktemp -d /tmp/zram-wb4.XXXXXX)
zram_defer rm -rf "$tmp"
pages=1024

ktap_plan 8

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
head -c $((pages * 4096)) /dev/urandom >"$tmp/data"
dd if="$tmp/data" of="$ZRAM_DEV" bs=64k oflag=direct 2>/dev/null
zram_text_file 128
# expected content: pages 0-127 are overwritten while the writeback runs
cp "$tmp/data" "$tmp/expect"
dd if="$TEXT_FILE" of="$tmp/expect" bs=4096 conv=notrunc 2>/dev/null
echo all >"$ZRAM_SYS/idle"
# one write in flight at a time, so the writeback lasts long enough
zram_attr_exists writeback_batch_size && echo 1 >"$ZRAM_SYS/writeback_batch_size"

exec 3<"$ZRAM_DEV"
zram_write "$ZRAM_SYS/writeback" idle >"$tmp/first" &
first=$!
zram_defer kill "$first"
while [ "$(bd_writes)" -lt 8 ] && kill -0 "$first" 2>/dev/null; do
	sleep 0.05
done
running=0
kill -0 "$first" 2>/dev/null && running=1
second=$(zram_write "$ZRAM_SYS/writeback" idle)
reset=$(zram_write "$ZRAM_SYS/reset" 1)
dd if="$TEXT_FILE" of="$ZRAM_DEV" bs=4096 oflag=direct 2>/dev/null
wait "$first"
exec 3<&-
ktap_info "first still running when the second started: $running; second: $second"

ktap_eq "first writeback succeeds" "$(cat "$tmp/first")" OK
if [ "$running" = 0 ]; then
	ktap_skip "second writeback: EAGAIN or waits" "the first one ended first"
else
	case $second in
	EAGAIN | OK) ktap_ok "second writeback: EAGAIN or waits ($second)" ;;
	*) ktap_not_ok "second writeback: EAGAIN or waits (got $second)" ;;
	esac
fi
ktap_eq "reset of the open device during writeback -> EBUSY" "$reset" EBUSY
ktap_eq "initstate still 1" "$(cat "$ZRAM_SYS/initstate")" 1

# every stored slot exactly once in RAM or on the device
stored=$(($(zram_field mm_stat 1) / 4096))
if [ -r "$(zram_block_state_file)" ]; then
	ktap_eq "slots marked written back == bd_stat count" \
		"$(zram_block_state_count '^.w')" "$(bd_count)"
	ktap_eq "slots listed == pages stored" "$(zram_block_state_count .)" "$stored"
else
	ktap_skip "slots marked written back == bd_stat count" "no debugfs block_state"
	ktap_skip "slots listed == pages stored" "no debugfs block_state"
fi
ktap_eq "pages stored == $pages" "$stored" "$pages"
zram_drop_caches
ktap_eq "data intact (overwrites won over the writeback)" \
	"$(zram_read_all "$ZRAM_DEV" "$pages")" "$(sha256sum <"$tmp/expect" | cut -d' ' -f1)"

ktap_finish
