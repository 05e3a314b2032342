#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Slots that change while their writeback bios are in flight. 32 idle
# slots of compressible data go to a backing device that completes each
# request 3 s after it was issued (null_blk, timer); once they are copied
# into bios in flight, slots 0-15 are overwritten and slots 16-23 read.
# When the bios complete, only the untouched slots 24-31 may be
# committed: an overwritten slot keeps its new data in RAM (its block is
# freed), a slot read since selection is hot again and stays in RAM, as
# upstream's idle writeback decides. bd_count then matches block_state,
# the data reads back intact and a discard frees every block. All of it
# twice: whole pages (32 blocks written), then packed objects
# (compressed_writeback, where the driver has it: blocks were written for
# objects that then dropped out, and a block the survivors share stays).
# Stock 6.12 writes back one page at a time (no bios in flight to race
# with): the test skips there.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd blkdiscard

work=$(mktemp -d /tmp/zram-wb20.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
pages=32

# setup KIND: a fresh zram device over a fresh slow null_blk, with
# compressed_writeback on for KIND packed; pages 0-31 written from the
# words file and idle; $work/expect holds what they must read back.
setup() {
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
	zram_attr_exists writeback_batch_size ||
		ktap_skip_all "no writeback_batch_size: one page at a time (stock 6.12)"
	zram_require_block_state
	[ "$1" = packed ] && echo 1 >"$ZRAM_SYS/compressed_writeback"
	zram_nullb 16 irqmode=2 completion_nsec=3000000000 ||
		ktap_skip_all "cannot create a null_blk with timer completions"
	inflight=/sys/block/$(basename "$NULLB")/inflight
	[ -r "$inflight" ] || ktap_skip_all "no $inflight"
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
	zram_init 16M || ktap_bail "cannot set disksize"
	zram_words_file "$pages"
	dd if="$WORDS_FILE" of="$ZRAM_DEV" bs=4096 count="$pages" oflag=direct \
		2>/dev/null || ktap_bail "cannot write $pages pages"
	cp "$WORDS_FILE" "$work/expect"
	head -c $((16 * 4096)) /dev/urandom >"$work/new"
	dd if="$work/new" of="$work/expect" bs=4096 conv=notrunc 2>/dev/null
	echo all >"$ZRAM_SYS/idle"
}

# race KIND: after setup KIND, the writeback, and the overwrites and reads while its bios
# are in flight; then the checks (9 results).
race() {
	local kind=$1 wb i during

	zram_write "$ZRAM_SYS/writeback" idle >"$work/wb" &
	wb=$!
	zram_defer kill "$wb"
	# wait for the bios, then give the copying time to end
	for ((i = 0; i < 100; i++)); do
		[ "$(zram_disk_inflight "$NULLB")" -gt 0 ] && break
		sleep 0.02
	done
	sleep 0.3
	dd if="$work/new" of="$ZRAM_DEV" bs=4096 count=16 oflag=direct 2>/dev/null ||
		ktap_bail "cannot overwrite slots 0-15"
	dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip=16 count=8 iflag=direct \
		2>/dev/null || ktap_bail "cannot read slots 16-23"
	during=$(zram_disk_inflight "$NULLB")
	wait "$wb"

	ktap_eq "$kind: writeback succeeds" "$(cat "$work/wb")" OK
	ktap_check "$kind: the overwrites and reads ran while the bios were in flight" \
		[ "$during" -gt 0 ]
	if [ "$kind" = whole ]; then
		ktap_eq "$kind: every slot was copied before they ran: $pages blocks written" \
			"$(bd_writes)" "$pages"
	else
		ktap_check "$kind: blocks were written for objects that dropped out" \
			[ "$(bd_writes)" -gt "$(bd_count)" ]
	fi
	ktap_eq "$kind: overwritten slots 0-15 stay in RAM" \
		"$(zram_block_state_range 0 15 w)" 0
	ktap_eq "$kind: slots 16-23, read since selection, stay in RAM" \
		"$(zram_block_state_range 16 23 w)" 0
	ktap_eq "$kind: untouched slots 24-31 are written back" \
		"$(zram_block_state_range 24 31 w)" 8
	ktap_check "$kind: bd_count matches block_state" zram_blocks_consistent
	ktap_info "$kind: bd_stat $(bd_stat)"
	zram_drop_caches
	ktap_eq "$kind: data intact: the overwrites won" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")" \
		"$(sha256sum <"$work/expect" | cut -d' ' -f1)"
	blkdiscard "$ZRAM_DEV"
	ktap_eq "$kind: discard of everything frees every block" "$(bd_count)" 0
}

setup whole
ktap_plan 18
race whole
if zram_attr_exists compressed_writeback; then
	setup packed
	race packed
else
	ktap_skip_n 9 packed "no compressed_writeback"
fi
ktap_finish
