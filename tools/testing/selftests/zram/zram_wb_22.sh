#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A killed writeback stops. The backing device is dm-delay over null_blk
# holding every write for DELAY_MS, and writeback_batch_size is 1: one
# page in flight, so writing back the device's slots would take an hour.
# A writer killed a few seconds in ends once the write in flight completes,
# with the slots written so far committed (block_state's w flags match
# bd_stat's count) and no slot left selected: with the delay gone a second
# writeback writes every other slot, and all of them read back as written.
# Then a reset waits behind a running writeback; once the writer is
# killed the reset ends as well and the backing device is released.
# Stock (6.12 and 7.x) writes on until its run ends.

. "$(dirname "$0")/zram_lib.sh"

PAGES=1024
DELAY_MS=1000
WAIT_S=30	# for a killed writer: its write in flight ends in DELAY_MS

zram_require_basic
zram_require_nullb
zram_require_dm
modprobe dm-delay >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
sectors=$(zram_sectors "$NULLB")
slow="0 $sectors delay $NULLB 0 0 $NULLB 0 $DELAY_MS"
fast="0 $sectors delay $NULLB 0 0"
zram_dm wd "$slow" || ktap_skip_all "cannot create a dm-delay device"
# whatever happens below, a writer still running ends soon after this
zram_defer zram_dm_reload "$fast"

# start_writeback: `echo idle > writeback` in a child; sets WRITER
start_writeback() {
	echo all >"$ZRAM_SYS/idle"
	bash -c "echo idle >$ZRAM_SYS/writeback" 2>/dev/null &
	WRITER=$!
	disown "$WRITER"	# no "Killed" line from this shell
}

# gone PID...: true once every PID has ended, waiting at most WAIT_S
# shellcheck disable=SC2317 # called through ktap_check
gone() {
	local end=$((SECONDS + WAIT_S)) p

	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.2
		done
	done
}

echo "$DM" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
# (6.12 has no such attribute: it writes one page at a time anyway)
echo 1 >"$ZRAM_SYS/writeback_batch_size" 2>/dev/null
zram_init 16M || ktap_bail "cannot set disksize"
zram_require_block_state

ktap_plan 9

zram_fill_pages "$ZRAM_DEV" 0 "$PAGES" text
sum=$(zram_read_all "$ZRAM_DEV" "$PAGES")
start_writeback
sleep 3
ktap_check "the writeback to the slow device is running" kill -0 "$WRITER"
kill -KILL "$WRITER"
ktap_check "the killed writer ends" gone "$WRITER"
done_pages=$(bd_count)
ktap_info "$done_pages of $PAGES slots written back before the kill"
ktap_eq "the slots written are committed: w flags == bd_stat count" \
	"$(zram_block_state_count w)" "$done_pages"
ktap_check "the writeback stopped early" test "$done_pages" -lt "$PAGES"

zram_dm_reload "$fast" || ktap_bail "cannot load the fast table"
echo all >"$ZRAM_SYS/idle"
ktap_eq "no slot left selected: a second writeback writes all the others" \
	"$(zram_write "$ZRAM_SYS/writeback" idle) $(zram_block_state_count w) $(bd_count)" \
	"OK $PAGES $PAGES"
ktap_eq "every slot reads back as written" "$(zram_read_all "$ZRAM_DEV" "$PAGES")" "$sum"

# a reset queued behind a running writeback
zram_fill_pages "$ZRAM_DEV" 0 256 text
zram_dm_reload "$slow" || ktap_bail "cannot load the slow table"
start_writeback
sleep 2
bash -c "echo 1 >$ZRAM_SYS/reset" &
resetter=$!
disown "$resetter"
sleep 1
ktap_check "the reset waits behind the writeback" kill -0 "$resetter"
kill -KILL "$WRITER"
ktap_check "the killed writer and then the reset end" gone "$WRITER" "$resetter"
ktap_eq "the reset released the backing device" \
	"$(cat "$ZRAM_SYS/initstate") $(cat "$ZRAM_SYS/backing_dev")" "0 none"
ktap_finish
