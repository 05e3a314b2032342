#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nobody waits behind a writeback who need not: while a slow writeback
# runs, a second writeback either fails at once with EAGAIN (6.12) or
# waits killably (SIGKILL ends it); a reset of the closed device waits
# for the writeback, but meanwhile mm_stat, bd_stat and io_stat stay
# readable (6.12 makes them wait behind the queued reset for the rest of
# the writeback) and the device cannot be opened (EBUSY: the reset owns
# it); afterwards the reset has emptied the device.

. "$(dirname "$0")/zram_lib.sh"

# 30 ms per backing-device write, one write in flight: 512 random pages
# take about 15 s whether each bio carries one page (6.12) or more
zram_wb_ready 16 irqmode=2 completion_nsec=30000000
tmp=$(mktemp -d /tmp/zram-wb7.XXXXXX)
zram_defer rm -rf "$tmp"

zram_fill_pages "$ZRAM_DEV" 0 512 random
echo all >"$ZRAM_SYS/idle"
if zram_attr_exists writeback_batch_size; then
	echo 1 >"$ZRAM_SYS/writeback_batch_size"
fi
knob=/sys/kernel/debug/zram/zram$ZRAM_ID/wb_max_bio_pages
[ -w "$knob" ] && echo 1 >"$knob"

ktap_plan 7
zram_write "$ZRAM_SYS/writeback" idle >"$tmp/first" &
first=$!
zram_defer kill "$first"
while [ "$(bd_writes)" -lt 2 ] && kill -0 "$first" 2>/dev/null; do
	sleep 0.05
done
kill -0 "$first" 2>/dev/null || ktap_bail "the writeback ended too soon"

zram_write "$ZRAM_SYS/writeback" idle >"$tmp/second" &
second=$!
sleep 1
if ! kill -0 "$second" 2>/dev/null; then
	ktap_eq "second writeback: fails at once with EAGAIN (6.12)" \
		"$(cat "$tmp/second")" EAGAIN
else
	kill -9 "$second"
	ktap_check "second writeback: waits, and SIGKILL ends the wait" \
		zram_pid_ended "$second" 5
fi

zram_write "$ZRAM_SYS/reset" 1 >"$tmp/reset" &
reset=$!
sleep 1
kill -0 "$first" 2>/dev/null || ktap_bail "the writeback ended too soon"
err=$(dd if="$ZRAM_DEV" of=/dev/null bs=4096 count=1 iflag=direct 2>&1 \
	>/dev/null | head -n 1)
ktap_eq "an open while the reset waits fails with EBUSY" "${err##*: }" \
	"Device or resource busy"
for a in mm_stat bd_stat io_stat; do
	cat "$ZRAM_SYS/$a" >/dev/null &
	reader=$!
	ktap_check "$a readable while a reset waits for the writeback" \
		zram_pid_ended "$reader" 5
	kill -9 "$reader" 2>/dev/null
done
wait "$first" "$reset"
ktap_info "first writeback: $(cat "$tmp/first"), reset: $(cat "$tmp/reset")"
ktap_eq "the reset succeeded after the writeback" "$(cat "$tmp/reset")" OK
ktap_eq "the device is empty and uninitialized" \
	"$(cat "$ZRAM_SYS/initstate") $(bd_count)" "0 0"
ktap_finish
