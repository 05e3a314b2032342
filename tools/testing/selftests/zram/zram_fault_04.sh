#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backing-device read errors reach the reader and lose nothing. Slots are
# written back to a device-mapper device over a null_blk that completes
# from a timer, then its table becomes dm-error. A read of a written-back
# slot then fails with EIO: with O_DIRECT, a whole page (a read chained to
# the zram bio) and a packed object (decompressed after its read completes;
# where the driver has compressed_writeback); in two partial bio_vecs (the
# synchronous read); and through the page cache after drop_caches.
# bd_stat's bd_reads counts a failed read it issued, as 7.3. On ours
# io_stat's failed reads counts each slot whose read failed (7.3 counts
# none of the reads it chains to the zram bio). Slots in RAM still read.
# Once the device works again every slot reads back as written, still on
# the backing device.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_dm_linear_dev
sectors=$(zram_sectors "$NULLB")
good=$DM_LINEAR
work=$(mktemp -d /tmp/zram-f4.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# slot_read SLOT [DD_OPERAND...]: dd's error reading SLOT, "ok" without one
slot_read() {
	local err

	err=$(dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip="$1" count=1 \
		"${@:2}" 2>&1 >/dev/null) && { echo ok; return; }
	echo "${err##*: }"
}

# direct_read SLOT: slot_read with O_DIRECT
direct_read() {
	slot_read "$1" iflag=direct
}

# cached_read SLOT: slot_read through the page cache, after drop_caches
cached_read() {
	zram_drop_caches
	slot_read "$1"
}

# split_read SLOT: fio's error number reading SLOT with O_DIRECT into a
# buffer 512 bytes into a page: two partial bio_vecs
split_read() {
	fio --name=split --filename="$ZRAM_DEV" --ioengine=psync --direct=1 \
		--rw=read --bs=4k --size=4k --offset=$(($1 * 4096)) \
		--iomem_align=512 --output-format=json \
		--output="$work/split.json" >/dev/null 2>&1
	zram_fio_json "$work/split.json" job error
}

# failed_grew WHAT WANT: io_stat's failed reads grew by WANT since the last
# call ("1+": by one or more; readahead may take in the next slots)
failed_seen=0
failed_grew() {
	local now grew ok

	now=$(zram_field io_stat 1)
	grew=$((now - failed_seen))
	failed_seen=$now
	if [ "${ZRAM_DRIVER:-stock}" = stock ]; then
		ktap_skip "io_stat counts the failed $1" "stock counts no chained read"
		return
	fi
	case $2 in
	1+) test "$grew" -ge 1 && ok=1 ;;
	*) test "$grew" -eq "$2" && ok=1 ;;
	esac
	ktap_check "io_stat counts the failed $1 ($grew)" test -n "${ok:-}"
}

packed=
if zram_attr_exists compressed_writeback; then
	echo 1 >"$ZRAM_SYS/compressed_writeback"
	packed=1
fi
echo "$DM" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"

ktap_plan 20

# slots 0-31 compress (packed where the driver packs), 32-39 do not
zram_fill_pages "$ZRAM_DEV" 0 32 text
zram_fill_pages "$ZRAM_DEV" 32 8 random
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
zram_fill_pages "$ZRAM_DEV" 40 8 text
sum=$(zram_read_all "$ZRAM_DEV" 48)
blocks=$(bd_count)
ktap_info "40 slots written back in $blocks blocks"
ktap_eq "40 slots written back" "$(zram_block_state_count w)" 40

zram_dm_reload "0 $sectors error" || ktap_bail "cannot load the error table"
reads=$(bd_reads)
failed_seen=$(zram_field io_stat 1)
ktap_eq "O_DIRECT read of a whole page on the failing device -> EIO" \
	"$(direct_read 35)" "Input/output error"
failed_grew "O_DIRECT read" 1
ktap_eq "bd_reads counts the failed read" "$(($(bd_reads) - reads))" 1
reads=$(bd_reads)
ktap_eq "read of a whole page in two partial bio_vecs -> EIO" \
	"$(split_read 36)" 5
failed_grew "partial read" 1
# ours reads synchronously and stops at the first failed bio_vec; 7.3
# with 4 KiB pages issues a read per bio_vec before either fails
grew=$(($(bd_reads) - reads))
ktap_check "bd_reads counts the failed partial read ($grew)" \
	test "$grew" -ge 1 -a "$grew" -le 2
ktap_eq "buffered read of a whole page after drop_caches -> EIO" \
	"$(cached_read 37)" "Input/output error"
failed_grew "buffered read" 1+
rows=("O_DIRECT read of a packed object -> EIO"
	"read of a packed object in two partial bio_vecs -> EIO"
	"buffered read of a packed object after drop_caches -> EIO")
if [ -n "$packed" ]; then
	ktap_eq "${rows[0]}" "$(direct_read 3)" "Input/output error"
	failed_grew "O_DIRECT read of a packed object" 1
	ktap_eq "${rows[1]}" "$(split_read 4)" 5
	failed_grew "partial read of a packed object" 1
	ktap_eq "${rows[2]}" "$(cached_read 5)" "Input/output error"
	failed_grew "buffered read of a packed object" 1+
else
	for r in "${rows[@]}"; do
		ktap_skip "$r" "no compressed_writeback"
		ktap_skip "io_stat: $r" "no compressed_writeback"
	done
fi
ktap_eq "slots in RAM still read" "$(direct_read 41) $(cached_read 42)" "ok ok"
failed_grew "reads of slots in RAM: none" 0

zram_dm_reload "$good" || ktap_bail "cannot load the linear table"
ktap_eq "the device works again: the slots are still written back" \
	"$(zram_block_state_count w) $(bd_count)" "40 $blocks"
ktap_eq "every slot reads back as written (O_DIRECT)" \
	"$(zram_read_all "$ZRAM_DEV" 48)" "$sum"
zram_drop_caches
ktap_eq "every slot reads back as written (page cache)" \
	"$(zram_read_buffered "$ZRAM_DEV" 48)" "$sum"
ktap_finish
