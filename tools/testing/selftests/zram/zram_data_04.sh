#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Same-filled pages, write-zeroes and discard. Write-zeroes (blkdiscard -z)
# over slots in RAM and on the backing device reads back zeroes, frees
# their objects and blocks (orig_data_size, which counts the pages on the
# backing device too, and bd_count) and counts each page in notify_free
# (io_stat), as a plain discard does; the slots around keep their data. A
# page of one repeated word is stored as that word (mm_stat same_pages);
# pages that differ from one in their first, second, middle, second-last
# or last word are not, and read back exactly. Overwriting and discarding
# the same-filled pages takes them out of same_pages.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd blkdiscard
zram_wb_device
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
work=$(mktemp -d /tmp/zram-same.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# orig_data_size, notify_free
FREED=(mm_stat:1 io_stat:4)

ktap_plan 9

# Slots 16-31 written back, 32-47 in RAM, all text.
zram_fill_pages "$ZRAM_DEV" 16 16 text
echo all >"$ZRAM_SYS/idle"
zram_fill_pages "$ZRAM_DEV" 32 16 text
echo idle >"$ZRAM_SYS/writeback"
[ "$(bd_count)" = 16 ] || ktap_bail "16 slots not written back: $(bd_stat)"
ktap_check "write-zeroes is advertised" test \
	"$(cat "/sys/block/zram$ZRAM_ID/queue/write_zeroes_max_bytes")" -gt 0
before="$(zram_page_sum 16 8) $(zram_page_sum 40 8)"
before_free=$(zram_counters "${FREED[@]}")
ktap_check "write-zeroes of slots 24-39 (8 written back, 8 in RAM)" \
	blkdiscard -z -o $((24 * 4096)) -l $((16 * 4096)) "$ZRAM_DEV"
ktap_eq "they read back zeroes" "$(zram_page_sum 24 16)" \
	"$(head -c $((16 * 4096)) /dev/zero | sha256sum | cut -d' ' -f1)"
ktap_eq "slots 16-23 and 40-47 keep their data" \
	"$(zram_page_sum 16 8) $(zram_page_sum 40 8)" "$before"
ktap_eq "blocks and bytes freed, each page in notify_free" \
	"$(bd_count) $(zram_grew "$before_free" "$(zram_counters "${FREED[@]}")")" \
	"8 -$((16 * 4096)) 16"
before_free=$(zram_counters "${FREED[@]}")
blkdiscard -o $((40 * 4096)) -l $((4 * 4096)) "$ZRAM_DEV"
ktap_eq "a discard of 4 slots in RAM: bytes freed, notify_free" \
	"$(zram_grew "$before_free" "$(zram_counters "${FREED[@]}")")" \
	"-$((4 * 4096)) 4"

# Slots 0-11: one word repeated (0 and 0x5a...), then each of those with
# one word changed.
head -c 4096 /dev/zero >"$work/w0"
head -c 4096 /dev/zero | tr '\0' Z >"$work/w5a"
for base in w0 w5a; do
	for w in 0 1 255 510 511; do
		head -c $((w * 8)) "$work/$base"
		printf 'zram%04d' "$w"
		tail -c $((4096 - w * 8 - 8)) "$work/$base"
	done
done >"$work/near"
cat "$work/near" "$work/w0" "$work/w5a" >"$work/pages"
same=$(zram_field mm_stat 6)
dd if="$work/pages" of="$ZRAM_DEV" bs=4096 oflag=direct conv=notrunc \
	2>/dev/null
ktap_eq "two same-filled pages, ten with one word changed: same_pages" \
	"$(($(zram_field mm_stat 6) - same))" 2
ktap_eq "the pages with one word changed read back exactly" \
	"$(zram_page_sum 0 12)" "$(sha256sum <"$work/pages" | cut -d' ' -f1)"
zram_fill_pages "$ZRAM_DEV" 10 1 text
blkdiscard -o $((11 * 4096)) -l 4096 "$ZRAM_DEV"
ktap_eq "same_pages after overwriting one and discarding the other" \
	"$(zram_field mm_stat 6)" "$same"
ktap_finish
