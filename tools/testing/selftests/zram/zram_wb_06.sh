#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reads of written-back slots racing with their free and the reuse of
# their block: a read must return the old or the new data of its own
# slot, never another slot's.
#
# Every 4 KiB slot is stamped with its own index (and a generation) on
# every line. The backing device is a small dm-delay over null_blk that
# holds reads for 200 ms and lets writes through at once, so a read
# issued for a slot's block is still waiting when a writer overwrites or
# discards the slot and a writeback puts another slot's data into the
# freed block (the backing device is nearly full, so freed blocks are
# reused quickly). Readers read all slots with one O_DIRECT read at a
# time (all backing reads in flight together) and check every stamp.
# ZRAM_WB06_PACKED=1 (zram_packed_09.sh) runs it with compressed_writeback
# on: then a block holds several slots' objects and is reused once the
# last of them is freed.

. "$(dirname "$0")/zram_lib.sh"

NR_SLOTS=64
NR_BLOCKS=$((NR_SLOTS + 8))	# backing device blocks, block 0 unused
# packed, 64 slots take about 2 blocks: a small device reuses them soon
[ "${ZRAM_WB06_PACKED:-0}" = 1 ] && NR_BLOCKS=16
READ_DELAY_MS=200
NR_READERS=3
DURATION=${ZRAM_WB06_SECONDS:-30}

zram_require_basic
zram_require_nullb
zram_require_dm
zram_require_cmd blkdiscard
modprobe dm-delay >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
if [ "${ZRAM_WB06_PACKED:-0}" = 1 ]; then
	zram_require_packed
	echo 1 >"$ZRAM_SYS/compressed_writeback"
fi
zram_nullb 1 || ktap_skip_all "cannot create null_blk"
zram_dm delay "0 $((NR_BLOCKS * 8)) delay $NULLB 0 $READ_DELAY_MS $NULLB 0 0" ||
	ktap_skip_all "cannot create a dm-delay device"
tmp=$(mktemp -d /tmp/zram-wb6.XXXXXX)
zram_defer rm -rf "$tmp"

# stamp FIRST N GEN: N slots of text, each line "sSLOT gGEN" padded to
# 64 bytes, 64 lines per slot.
stamp() {
	awk -v a="$1" -v n="$2" -v g="$3" 'BEGIN {
		pad = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		for (s = a; s < a + n; s++)
			for (l = 0; l < 64; l++)
				printf "s%05d g%06d %s\n", s, g, pad
	}'
}

# write_slots FIRST N GEN: stamp slots FIRST.. with O_DIRECT.
write_slots() {
	stamp "$1" "$2" "$3" |
		dd of="$ZRAM_DEV" bs=4096 seek="$1" count="$2" iflag=fullblock \
			oflag=direct conv=notrunc 2>/dev/null
}

# check_read: read every slot with one O_DIRECT read; print one line per
# slot whose data is not its own (a discarded slot reads as zeros, which
# become empty lines and are fine).
check_read() {
	dd if="$ZRAM_DEV" bs=$((NR_SLOTS * 4096)) count=1 iflag=direct 2>/dev/null |
		tr '\000' '\n' |
		awk 'BEGIN { off = 0 }
		{
			slot = int(off / 4096)
			if (length($0) && (length($0) != 63 ||
			    substr($0, 1, 6) != sprintf("s%05d", slot))) {
				if (!(slot in seen))
					printf "slot %d holds \"%s\"\n", slot, substr($0, 1, 14)
				seen[slot] = 1
			}
			off += length($0) + 1
		}
		END { if (off != '$((NR_SLOTS * 4096))') printf "read %d bytes\n", off }'
}

writeback_all() {
	echo all >"$ZRAM_SYS/idle" 2>/dev/null
	echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
}

reader() {
	local passes=0

	while [ ! -e "$tmp/stop" ]; do
		check_read >>"$tmp/bad.$1"
		passes=$((passes + 1))
	done
	echo "$passes" >"$tmp/passes.$1"
}

writer() {
	local gen=0 first n

	while [ ! -e "$tmp/stop" ]; do
		gen=$((gen + 1))
		first=$((RANDOM % NR_SLOTS))
		n=$((1 + RANDOM % 8))
		[ $((first + n)) -gt "$NR_SLOTS" ] && n=$((NR_SLOTS - first))
		if [ $((RANDOM % 4)) -eq 0 ]; then
			blkdiscard -o $((first * 4096)) -l $((n * 4096)) "$ZRAM_DEV"
		else
			write_slots "$first" "$n" "$gen"
		fi
	done
	echo "$gen" >"$tmp/writes"
}

writebacker() {
	local runs=0

	while [ ! -e "$tmp/stop" ]; do
		writeback_all
		runs=$((runs + 1))
	done
	echo "$runs" >"$tmp/writebacks"
}

ktap_plan 7

if ! { echo "$DM" >"$ZRAM_SYS/backing_dev" && zram_init 1M; }; then
	ktap_bail "cannot set up the device"
fi
ktap_check "slots written" write_slots 0 "$NR_SLOTS" 0
writeback_all
if [ "${ZRAM_WB06_PACKED:-0}" = 1 ]; then
	ktap_eq "every slot written back" "$(zram_block_state_count w)" "$NR_SLOTS"
else
	ktap_eq "every slot written back" "$(bd_count)" "$NR_SLOTS"
fi
ktap_eq "the written-back slots read back as their own" "$(check_read)" ""

pids=()
for r in $(seq "$NR_READERS"); do
	reader "$r" &
	pids+=($!)
done
writer &
pids+=($!)
writebacker &
pids+=($!)
# At least DURATION seconds, then on until freed blocks were reused (a slow
# machine, e.g. a debug kernel under emulation, needs longer), at most
# four times as long.
end=$((SECONDS + DURATION))
cap=$((SECONDS + 4 * DURATION))
while [ "$SECONDS" -lt "$end" ] ||
	{ [ "$(bd_writes)" -le "$NR_BLOCKS" ] && [ "$SECONDS" -lt "$cap" ]; }; do
	sleep 1
done
touch "$tmp/stop"
wait "${pids[@]}"

passes=0
for r in $(seq "$NR_READERS"); do
	passes=$((passes + $(cat "$tmp/passes.$r")))
done
ktap_info "$passes read passes of $NR_SLOTS slots, $(cat "$tmp/writes") writes/discards," \
	"$(cat "$tmp/writebacks") writebacks in $((SECONDS - end + DURATION)) s, bd_stat $(bd_stat)"
bad=$(cat "$tmp"/bad.* | sort | uniq -c | head -20)
[ -n "$bad" ] && while read -r line; do echo "# $line"; done <<<"$bad"
ktap_eq "no read returned another slot's data" "$bad" ""
ktap_check "the readers ran" test "$passes" -gt 0
ktap_check "freed blocks were reused (more blocks written than exist)" \
	test "$(bd_writes)" -gt "$NR_BLOCKS"
writeback_all
ktap_eq "every slot reads back as its own at the end" "$(check_read)" ""

ktap_finish
