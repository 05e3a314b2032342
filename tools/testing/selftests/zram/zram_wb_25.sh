#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reads of whole written-back pages whose blocks follow each other: one
# backing-device read per run of consecutive blocks. 256 slots are written
# back into a fresh bitmap, slot N into block N + 1 (block 0 is never
# used). An O_DIRECT read of 64 KiB (16 slots, one zram bio: 128 KiB would
# be two, as bios of zram and null_blk end at 124 KiB) then takes one read
# of the device; bd_stat's bd_reads still counts a block per slot. A slot
# in RAM ends a run: with every fourth slot overwritten, each 64 KiB read
# takes four (runs of three). A device-mapper table that fails one block,
# in the middle of a run, fails the 64 KiB read that carries it; io_stat's
# failed reads counts the run's three slots, no more; a 4 KiB read fails
# for that slot only. Written back again, the overwritten slots take the
# blocks they left, beside their neighbours' (slot 0 the one before slot
# 1's), so 64 KiB reads take one device read each again; so do 40
# overwritten slots in a row, more than one writeback request carries.
# Each read returns the data written. The backing device completes from a
# timer, as hardware does from an interrupt. Stock reads a slot at a time.

. "$(dirname "$0")/zram_lib.sh"

pages=256
bad=18	# slot 18, block 19: the middle of the run of slots 17-19
zram_require_basic
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_dm_linear_dev
sectors=$(zram_sectors "$NULLB")
good=$DM_LINEAR
work=$(mktemp -d /tmp/zram-wb25.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# read64 COUNT SKIP: COUNT O_DIRECT reads of 64 KiB from 64 KiB * SKIP
# into $work/got; prints "COMMANDS BD_READS RC": the backing device's read
# commands, bd_stat's bd_reads, dd's exit status
read64() {
	local r0 b0 rc=0

	r0=$(zram_disk_stat "$NULLB" 1)
	b0=$(bd_reads)
	dd if="$ZRAM_DEV" of="$work/got" bs=64k count="$1" skip="$2" \
		iflag=direct 2>/dev/null || rc=$?
	echo "$(($(zram_disk_stat "$NULLB" 1) - r0)) $(($(bd_reads) - b0)) $rc"
}

# sum FILE: its sha256
sum() {
	sha256sum "$1" | cut -d' ' -f1
}

# failing SLOT...: the slots among SLOT... whose 4 KiB O_DIRECT read fails
failing() {
	local s out=()

	for s in "$@"; do
		dd if="$ZRAM_DEV" of=/dev/null bs=4096 skip="$s" count=1 \
			iflag=direct 2>/dev/null || out+=("$s")
	done
	echo "${out[*]}"
}

echo "$DM" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 4M || ktap_bail "cannot set disksize"

ktap_plan 14

zram_fill_pages "$ZRAM_DEV" 0 "$pages" text ||
	ktap_bail "cannot write the text pages"
dd if="$ZRAM_DEV" of="$work/want" bs=64k count=16 iflag=direct 2>/dev/null ||
	ktap_bail "cannot read the pages back"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
ktap_eq "$pages slots written back, a block each" \
	"$(zram_block_state_count w) $(bd_count)" "$pages $pages"

read -r cmds reads rc < <(read64 16 0)
ktap_info "consecutive blocks: $cmds device reads for 16 reads of 64 KiB"
ktap_eq "a 64 KiB read of consecutive blocks is one device read" \
	"$cmds" 16
ktap_eq "bd_reads counts a block per slot, dd succeeds" "$reads $rc" \
	"$pages 0"
ktap_eq "the data read is the data written" "$(sum "$work/got")" \
	"$(sum "$work/want")"

# overwrite FIRST COUNT: new data in slots FIRST to FIRST + COUNT - 1
overwrite() {
	dd if=/dev/urandom of="$work/want" bs=4096 seek="$1" count="$2" \
		conv=notrunc 2>/dev/null &&
		dd if="$work/want" of="$ZRAM_DEV" bs=4096 skip="$1" seek="$1" \
			count="$2" oflag=direct conv=notrunc 2>/dev/null
}

# every fourth slot back in RAM, with other data: runs of three
for ((s = 0; s < pages; s += 4)); do
	overwrite "$s" 1 || ktap_bail "cannot write over slot $s"
done
read -r cmds reads rc < <(read64 16 0)
ktap_info "runs of three: $cmds device reads for 16 reads of 64 KiB"
ktap_eq "a slot in RAM ends a run: 4 device reads per 64 KiB" \
	"$cmds" 64
ktap_eq "bd_reads counts the written-back slots, dd succeeds" \
	"$reads $rc" "$((pages * 3 / 4)) 0"
ktap_eq "the data read is the data written" "$(sum "$work/got")" \
	"$(sum "$work/want")"

# block $((bad + 1)) fails, the blocks around it read
at=$(((bad + 1) * 8))
zram_dm_reload "0 $at linear $NULLB 0
$at 8 error
$((at + 8)) $((sectors - at - 8)) linear $NULLB $((at + 8))" ||
	ktap_bail "cannot load the table with a failing block"
failed=$(zram_field io_stat 1)
read -r cmds reads rc < <(read64 2 0)
ktap_check "the 64 KiB read carrying the failing block fails" \
	test "$rc" -ne 0
if [ "${ZRAM_DRIVER:-stock}" = stock ]; then
	ktap_skip "io_stat counts the run's 3 slots" \
		"stock counts no chained read"
else
	ktap_eq "io_stat counts the run's 3 slots as failed" \
		"$(($(zram_field io_stat 1) - failed))" 3
fi
ktap_eq "a 4 KiB read fails for slot $bad only" \
	"$(failing $(seq 0 31))" "$bad"

zram_dm_reload "$good" || ktap_bail "cannot load the linear table"
read -r cmds reads rc < <(read64 16 0)
ktap_eq "the device works again: every slot reads as written" \
	"$rc $(sum "$work/got")" "0 $(sum "$work/want")"

# the overwritten slots back to the device: their old blocks are free
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
ktap_eq "written back again: every slot on the device" \
	"$(zram_block_state_count w) $(bd_count)" "$pages $pages"
read -r cmds reads rc < <(read64 16 0)
ktap_info "after the rewrite: $cmds device reads for 16 reads of 64 KiB"
ktap_eq "slots written back again beside their neighbours: 16 device reads" \
	"$cmds $rc $(sum "$work/got")" "16 0 $(sum "$work/want")"

overwrite 20 40 || ktap_bail "cannot write over slots 20 to 59"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
read -r cmds reads rc < <(read64 16 0)
ktap_info "after 40 slots in a row: $cmds device reads for 16 reads of 64 KiB"
ktap_eq "40 slots in a row, written back again: 16 device reads" \
	"$cmds $rc $(sum "$work/got")" "16 0 $(sum "$work/want")"
ktap_finish
