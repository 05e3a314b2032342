#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bytes of a packed block that hold no object are written as zeroes, not
# as whatever the request's buffer held before. Writeback keeps one
# request in flight (writeback_batch_size 1), of at most two blocks
# (debugfs wb_max_bio_pages), so each request after the first reuses the
# buffer of the one before. Two kinds of page, a text page and a page of
# 2 KiB random bytes and 2 KiB zeroes, compress to objects of different
# bytes and lengths. A first writeback of one page of each learns the two
# objects. Then runs of both kinds are written back, so that requests end
# at different offsets, and the backing device is read raw: its blocks
# hold nothing but those objects back to back, each run of them followed
# by zeroes to the end of its block, and as many objects of each kind as
# there are slots. On a fresh backing device, on one whose free blocks are
# holes between incompressible pages (skipped when read), and on one where
# a request takes the last block and a hole at the start, so that its
# first block ends in a gap that no object may run across.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd od fio
first=256
# kind:pages, in slot order from page first on
runs=(1:64 2:40 1:7)

work=$(mktemp -d /tmp/zram-pk14.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
zram_text_file 1 || ktap_skip_all "no /tmp"
cp "$TEXT_FILE" "$work/kind1"
{
	head -c 2048 /dev/urandom
	head -c 2048 /dev/zero
} >"$work/kind2"
head -c $((255 * 4096)) /dev/urandom >"$work/fill"
want=(0 0 0)
for r in "${runs[@]}"; do
	for ((i = 0; i < ${r#*:}; i++)); do
		cat "$work/kind${r%:*}"
	done
	want[${r%:*}]=$((want[${r%:*}] + ${r#*:}))
done >"$work/data"
pages=$((want[1] + want[2]))

ktap_plan 13

# attach: a new zram device packing onto a new 1 MiB null_blk (block 0
# unused: 255 blocks), one request of at most two blocks in flight.
attach() {
	local knob

	zram_nullb 1 || ktap_skip_all "cannot create null_blk"
	zram_packed_attach "$NULLB" 16M
	knob=/sys/kernel/debug/zram/zram$ZRAM_ID/wb_max_bio_pages
	[ -w "$knob" ] || ktap_skip_all "no debugfs wb_max_bio_pages"
	echo 2 >"$knob"
	echo 1 >"$ZRAM_SYS/writeback_batch_size"
}

# backing_hex: the backing device's blocks that hold something other than
# zeroes or a page of $work/fill, in block order, as one line of hex each.
backing_hex() {
	dd if="$NULLB" bs=64k iflag=direct 2>/dev/null |
		od -An -tx1 -v -w4096 | awk -v fill="$work/fill.hex" '
		BEGIN {
			while ((getline line <fill) > 0)
				skip[line] = 1
		}
		{
			gsub(/ /, "")
			if (!($0 in skip) && $0 !~ /^0*$/)
				print
		}'
}

# parse: reads backing_hex's blocks as one stream and prints
# "OBJECTS1 OBJECTS2 BAD": objects of each kind, and places where neither
# object starts and the rest of the block is not all zeroes.
parse() {
	awk -v o1="$(cat "$work/obj1")" -v o2="$(cat "$work/obj2")" '
	{ s = s $0 }
	END {
		n = length(s)
		for (p = 0; p < n; ) {
			if (substr(s, p + 1, length(o1)) == o1) {
				c1++
				p += length(o1)
				continue
			}
			if (substr(s, p + 1, length(o2)) == o2) {
				c2++
				p += length(o2)
				continue
			}
			q = (int(p / 8192) + 1) * 8192
			if (substr(s, p + 1, q - p) !~ /^0*$/ && ++bad <= 3)
				printf "# stream block %d, byte %d: %s\n",
					int(p / 8192), (p % 8192) / 2,
					"neither object nor zero" >"/dev/stderr"
			p = q
		}
		print c1 + 0, c2 + 0, bad + 0
	}'
}

# put FILE PAGE [DD_OPERAND...]: writes FILE's pages to the zram device
# from page PAGE on.
put() {
	dd if="$1" of="$ZRAM_DEV" bs=4096 seek="$2" "${@:3}" oflag=direct \
		conv=notrunc 2>/dev/null
}

# learn: one request of one object of each kind; the objects' bytes go to
# $work/obj1 and $work/obj2 as hex.
learn() {
	local len1 len2

	attach
	put "$work/kind1" 0
	len1=$(zram_field mm_stat 2)
	put "$work/kind2" 1
	len2=$(($(zram_field mm_stat 2) - len1))
	ktap_info "objects: text $len1 bytes, half random $len2 bytes"
	ktap_check "one object of each kind written back" expect_errno OK \
		"$ZRAM_SYS/writeback" page_indexes=0-1
	[ "$(zram_wb_stat packed_objects) $(bd_count)" = "2 1" ] ||
		ktap_bail "the two objects are not packed into one block"
	backing_hex | head -n 1 | awk -v l1="$len1" -v l2="$len2" \
		-v d="$work" '{
		print substr($0, 1, 2 * l1) >(d "/obj1")
		print substr($0, 2 * l1 + 1, 2 * l2) >(d "/obj2")
	}'
	[ "$(wc -c <"$work/obj2")" = $((2 * len2 + 1)) ] ||
		ktap_bail "cannot read the two objects off the backing device"
}

# pack CASE: writes the runs from page first on, writes them back, and
# checks what the backing device holds.
pack() {
	local name=$1 sum got

	put "$work/data" "$first"
	sum=$(zram_read_all "$ZRAM_DEV" $((first + pages)))
	ktap_check "$name: packed writeback of $pages slots" expect_errno OK \
		"$ZRAM_SYS/writeback" "page_indexes=$first-$((first + pages - 1))"
	ktap_eq "$name: every slot packed" "$(zram_wb_stat packed_objects)" \
		"$pages"
	ktap_info "$name: $(zram_wb_stat packed_bytes) bytes in" \
		"$(zram_wb_stat packed_blocks) blocks"
	got=$(backing_hex | parse)
	ktap_eq "$name: blocks hold objects and zeroes only, one per slot" \
		"$got" "${want[1]} ${want[2]} 0"
	ktap_eq "$name: the slots read back" \
		"$(zram_read_all "$ZRAM_DEV" $((first + pages)))" "$sum"
}

od -An -tx1 -v -w4096 "$work/fill" | tr -d ' ' >"$work/fill.hex"
learn

attach
pack "fresh backing device"

# fragment N: the first N pages of $work/fill written back whole (blocks 1
# to N), then every other one discarded: single free blocks between used
# ones, and blocks N+1 to 255 free after them.
fragment() {
	local n=$1

	put "$work/fill" 0 count="$n"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	[ "$(bd_count)" = "$n" ] ||
		ktap_bail "incompressible pages do not take $n blocks"
	zram_discard_alternate "$ZRAM_DEV" "$n"
}

attach
fragment 255
pack "holes between used blocks"

# Two requests of two blocks after the last filler, then one of the last
# block and a hole at the start: its objects cannot run from one into the
# other, so the first block ends in zeroes where the request before had
# objects.
attach
fragment 250
pack "past the last block to the first hole"
ktap_finish
