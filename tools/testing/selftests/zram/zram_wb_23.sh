#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several ranges in one writeback write are written as one range over the
# same slots is: 256 page_index= parameters take no more write requests
# of the backing device than page_indexes=0-255 (whole pages, so a request
# carries many slots) and, with compressed_writeback, as many blocks (bd_
# writes: the objects of all the ranges are packed together). Overlapping
# and repeated ranges write each slot once. Every page reads back intact
# afterwards. The backing device completes from a timer, as hardware does
# from an interrupt. Stock 6.12 (one parameter per write) skips.

. "$(dirname "$0")/zram_lib.sh"

pages=256
zram_require_basic
zram_require_nullb
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_wb_attach "$NULLB"
zram_text_file "$pages" || ktap_bail "cannot make the text data"
want=$(zram_read_sum "$TEXT_FILE" "$pages")

# fresh PACKED: zram0 reset, backing device attached, compressed_writeback
# PACKED (0 or 1; left alone when empty), 16 MiB, pages 0-255 text
fresh() {
	echo 1 >"$ZRAM_SYS/reset"
	if [ -n "$1" ]; then
		echo "$1" >"$ZRAM_SYS/compressed_writeback" || return 1
	fi
	echo "$NULLB" >"$ZRAM_SYS/backing_dev" &&
		zram_init 16M &&
		zram_fill_pages "$ZRAM_DEV" 0 "$pages" text
}

# run PACKED INPUT: on a fresh device, writes INPUT to writeback; prints
# "RESULT BD_WRITES REQUESTS BD_COUNT SUM": zram_write's result, the bd_
# stat blocks written, the backing device's write requests, the blocks
# held after, and the sha256 of the pages read back with O_DIRECT
run() {
	local res bd req

	fresh "$1" || { echo "setup-failed - - - -"; return; }
	bd=$(bd_writes)
	req=$(zram_disk_stat "$NULLB" 5)
	res=$(zram_write "$ZRAM_SYS/writeback" "$2")
	echo "$res $(($(bd_writes) - bd))" \
		"$(($(zram_disk_stat "$NULLB" 5) - req)) $(bd_count)" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")"
}

probe="page_index=0 page_index=1"
fresh "" || ktap_bail "cannot set up zram$ZRAM_ID"
zram_wb_probe "$probe" ||
	ktap_skip_all "several parameters in one write: not supported (stock 6.12)"

params=$(printf 'page_index=%d ' $(seq 0 $((pages - 1))))
params=${params% }
overlap="page_indexes=0-127 page_indexes=64-255 page_index=3"
overlap+=" page_indexes=0-255"
modes=(0)
zram_attr_exists compressed_writeback && modes+=(1)
ktap_plan $((5 + 4 * (${#modes[@]} - 1)))

# whole pages: one request carries many slots
read -r res_r bd_r req_r cnt_r sum_r < <(run "${modes[0]}" "page_indexes=0-255")
read -r res_p bd_p req_p cnt_p sum_p < <(run "${modes[0]}" "$params")
ktap_eq "one range: all $pages written, data intact" \
	"$res_r $bd_r $cnt_r $sum_r" "OK $pages $pages $want"
ktap_eq "$pages page_index=: all $pages written, data intact" \
	"$res_p $bd_p $cnt_p $sum_p" "OK $pages $pages $want"
ktap_info "backing device write requests: range $req_r, page_index= $req_p"
ktap_check "$pages page_index=: at most twice the range's write requests" \
	[ "$req_p" -le $((2 * req_r)) ]
ktap_check "the range took several slots per request" \
	[ "$req_r" -lt $((pages / 2)) ]
read -r res_o bd_o _ cnt_o sum_o < <(run "${modes[0]}" "$overlap")
ktap_eq "overlapping and repeated ranges: each slot written once" \
	"$res_o $bd_o $cnt_o $sum_o" "OK $pages $pages $want"

[ "${#modes[@]}" -gt 1 ] || ktap_finish

# packed: the objects of every range share blocks
read -r res_r bd_r _ _ sum_r < <(run 1 "page_indexes=0-255")
read -r res_p bd_p _ _ sum_p < <(run 1 "$params")
ktap_eq "packed, one range: written, data intact" "$res_r $sum_r" "OK $want"
ktap_eq "packed, $pages page_index=: written, data intact" \
	"$res_p $sum_p" "OK $want"
ktap_eq "packed, $pages page_index=: as many blocks as one range" \
	"$bd_p" "$bd_r"
read -r res_o bd_o _ _ sum_o < <(run 1 "$overlap")
ktap_info "packed blocks written: range $bd_r, page_index= $bd_p," \
	"overlapping $bd_o"
# The overlap writes what came before it first, which may leave a block
# partly filled; a slot written twice would add half a block or more.
extra=over
[ "$bd_o" -gt $((bd_r + 1)) ] || extra=within
ktap_eq "packed, overlapping and repeated ranges: written once, intact" \
	"$res_o $sum_o, $extra one block of the range's" \
	"OK $want, within one block of the range's"
ktap_finish
