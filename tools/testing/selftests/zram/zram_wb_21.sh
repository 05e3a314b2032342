#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The writeback parameters are read as upstream 7.x reads them: in order,
# page_index=N and page_indexes=A-B write their slots whatever their
# state, a mode (bare or type=) applies to the last range given or the
# whole device and ends the input, unknown key=value parameters are
# ignored, an empty write succeeds and a page of ranges is read whole.
# Seen through the debugfs block_state flags; stock 6.12 (one parameter
# per write) skips.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_ready 16
zram_require_block_state
wb=$ZRAM_SYS/writeback
zram_wb_probe "page_index=0 page_index=1" ||
	ktap_skip_all "several parameters in one write: not supported (stock 6.12)"

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
# written: the indexes of the written-back slots, space separated
written() {
	awk '$3 ~ /^.w/ { printf "%s ", $1 }' "$(zram_block_state_file)"
}

# fresh IDLE...: a fresh device with 16 text slots, only the IDLE slots idle
fresh() {
	local i

	echo 1 >"$ZRAM_SYS/reset"
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" &&
		zram_init 16M || return 1
	zram_fill_pages "$ZRAM_DEV" 0 16 text
	echo all >"$ZRAM_SYS/idle"
	for ((i = 0; i < 16; i++)); do
		case " $* " in
		*" $i "*) ;;
		*) dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip="$i" count=1 \
			iflag=direct 2>/dev/null ;;
		esac
	done
}

# row DESC INPUT WANT_ERRNO WANT_WRITTEN IDLE...: on a fresh device with
# the IDLE slots idle, writing INPUT gives WANT_ERRNO and writes back
# exactly the slots WANT_WRITTEN ("" for none)
row() {
	local desc=$1 input=$2 want=$3 slots=$4 got

	shift 4
	fresh "$@" || { ktap_not_ok "$desc (setup)"; return; }
	got=$(zram_write "$wb" "$input")
	ktap_eq "$desc" "$got: $(written)" "$want: $slots"
}

ktap_plan 10
row "empty write: OK, nothing written" "" OK "" 2 3
row "unknown key=value ignored: OK, nothing written" "foo=1" OK "" 2 3
row "an unknown key before a mode is skipped" "foo=1 idle" OK "2 3 " 2 3
row "the first mode ends the input: 'huge idle' writes no slot" \
	"huge idle" OK "" 2 3
row "'idle huge' writes the idle slots" "idle huge" OK "2 3 " 2 3
row "'page_index=5 idle': slot 5, not idle, is written" "page_index=5 idle" \
	OK "5 " 2 3
row "'idle page_index=5': every idle slot, page_index not read" \
	"idle page_index=5" OK "2 3 " 2 3
row "'page_indexes=0-3 type=idle': all of 0-3" "page_indexes=0-3 type=idle" \
	OK "0 1 2 3 " 2 3
row "'page_index=9 type=idle page_index=5': 9, then the idle slots of 9" \
	"page_index=9 type=idle page_index=5" OK "9 " 5
# the densest input a page holds: 301 ranges of one digit and a mode
dense=$(printf 'page_index=1 %.0s' {1..300})
row "300 x 'page_index=1 ', then 'page_index=7 idle' (3917 bytes)" \
	"${dense}page_index=7 idle" OK "1 7 " 2 3
ktap_finish
