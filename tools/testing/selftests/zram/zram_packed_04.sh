#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A block holding packed objects stays in use while any of them lives.
# 40 compressible slots, their object sizes measured one by one (mm_stat
# compr_data_size), are written back by one request onto a fresh backing
# device: packed back to back from the first block, so object k starts at
# byte pos_k = size_0 + ... + size_(k-1). Reading every slot once counts
# one block in bd_reads per object and two for one that runs on into the
# next block. Then the slots are freed in order, by discard or overwrite
# in turn. After slot k went, the blocks in
# use (bd_count, debugfs packed_blocks) are exactly those holding bytes
# pos_(k+1) and on, their bytes that no live object holds (packed_unused_bytes)
# are theirs less the total - pos_(k+1) bytes of the live objects, the
# slots still on the backing device read back intact, and after the last
# one nothing is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd blkdiscard cmp
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_require_packed
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
n=40

# pages_intact FIRST: pages FIRST to n-1 read back (O_DIRECT) as written
pages_intact() {
	dd if="$ZRAM_DEV" bs=4096 skip="$1" count=$((n - $1)) iflag=direct \
		2>/dev/null | cmp -s - "$text" 0 $(($1 * 4096))
}

# the fields of debugfs wb_stat, read for every slot below
declare -A WB

ktap_plan 8

echo 1 >"$ZRAM_SYS/compressed_writeback"
echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_text_file "$n" || ktap_bail "no /tmp"
text=$TEXT_FILE
pos=(0)
for ((k = 0; k < n; k++)); do
	dd if="$text" of="$ZRAM_DEV" bs=4096 skip="$k" seek="$k" count=1 \
		oflag=direct conv=notrunc 2>/dev/null
	read -r -a mm <"$ZRAM_SYS/mm_stat"
	pos+=("${mm[1]}")
done
total=${pos[$n]}
pages_intact 0 || ktap_bail "the pages do not read back as written"
ktap_info "$n objects, $total bytes"

ktap_check "page_indexes=0-$((n - 1)) written back" \
	expect_errno OK "$ZRAM_SYS/writeback" "page_indexes=0-$((n - 1))"
ktap_eq "one block per 4 KiB of objects (bd_count packed_blocks objects)" \
	"$(bd_count) $(zram_wb_stat packed_blocks) $(zram_wb_stat packed_objects)" \
	"$(((total + 4095) / 4096)) $(((total + 4095) / 4096)) $n"
straddle=0
for ((k = 0; k < n; k++)); do
	[ $((pos[k] / 4096)) = $(((pos[k + 1] - 1) / 4096)) ] ||
		straddle=$((straddle + 1))
done
reads=$(bd_reads)
zram_read_all "$ZRAM_DEV" "$n" >/dev/null
ktap_eq "bd_reads: one per object, two for the $straddle that straddle" \
	"$(($(bd_reads) - reads))" $((n + straddle))

bad=''
for ((k = 0; k < n; k++)); do
	if [ $((k % 2)) = 0 ]; then
		blkdiscard -o $((k * 4096)) -l 4096 "$ZRAM_DEV"
	else
		zram_fill_pages "$ZRAM_DEV" "$k" 1 zero
	fi
	p=${pos[$((k + 1))]}
	if [ "$k" -lt $((n - 1)) ]; then
		nb=$(((total - 1) / 4096 - p / 4096 + 1))
		want="$nb $((nb * 4096 - (total - p)))"
	else
		want="0 0"
	fi
	read -r -a bd <"$ZRAM_SYS/bd_stat"
	zram_kv_read "/sys/kernel/debug/zram/zram$ZRAM_ID/wb_stat" WB
	got="${bd[0]} ${WB[packed_unused_bytes]:-}"
	if [ "$got" != "$want" ] || [ "${WB[packed_blocks]:-}" != "${got% *}" ]; then
		bad+=" slot $k: got '$got' packed_blocks"
		bad+=" ${WB[packed_blocks]:-}, want '$want';"
	fi
	if [ "$k" -lt $((n - 1)) ] && ! pages_intact $((k + 1)); then
		bad+=" slot $k: the slots after it changed;"
	fi
done
[ -n "$bad" ] && echo "#$bad" | fold -w 200
ktap_eq "blocks freed exactly with their last object, others intact" "$bad" ""
ktap_eq "nothing left on the backing device" "$(bd_stat | cut -d' ' -f1)" 0
left=''
for s in packed_objects packed_bytes packed_blocks packed_unused_bytes; do
	left+="$(zram_wb_stat "$s") "
done
ktap_eq "wb_stat: no packed objects, bytes, blocks, unused bytes" "$left" "0 0 0 0 "
zram_fill_pages "$ZRAM_DEV" 0 64 text
echo all >"$ZRAM_SYS/idle"
ktap_check "the freed blocks serve another writeback" \
	expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "its slots read back" "$(zram_read_all "$ZRAM_DEV" 64)" \
	"$(dd if="$TEXT_FILE" bs=4096 count=64 2>/dev/null | sha256sum | cut -d' ' -f1)"
ktap_finish
