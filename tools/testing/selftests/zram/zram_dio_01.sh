#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# O_DIRECT writes and reads whose user buffer is not page aligned: the
# buffer starts 512 or 3584 bytes into a page (fio iomem_align), so every
# 4 KiB slot of a 64 KiB write gathers its data from two pages. For each
# alignment, 16 blocking 64 KiB writes (psync) go over 1 MiB of slots
# that hold other data, once while those slots are in RAM and once while
# they are on the backing device (idle writeback first); then every 4 KiB
# must read back exactly (fio crc32c headers, which carry the offset),
# with a page-aligned buffer and with one at the same misalignment, the
# latter, for the backing-device case, after the new data was written
# back too; each slot of that read is two partial bvecs, each read from
# the backing device on its own, and bd_reads counts both.
#
# Old data is text ("zram page ..."), so a bad 4 KiB that still holds it
# is reported as "old data", anything else as "neither old nor new".
# Stock 6.12 is known to store such writes wrongly (in this test every
# 4 KiB of them is neither old nor new: each slot holds the data that
# starts 4096 - 512 or 4096 - 3584 bytes further on); run_all.sh reports
# this test as an expected failure there.

. "$(dirname "$0")/zram_lib.sh"

REGION_MB=1
ALIGNS="512 3584"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 irqmode=2 completion_nsec=20000 || ktap_skip_all "cannot create null_blk"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_skip_all "cannot set backing_dev"
zram_init 8M || ktap_skip_all "cannot set disksize"
tmp=$(mktemp -d /tmp/zram-dio.XXXXXX)
zram_defer rm -rf "$tmp"

ktap_plan 16

# dio_fio OUT ALIGN OFFSET_MB RW_ARGS...: fio over one region, 64 KiB
# blocking O_DIRECT I/O from a buffer ALIGN bytes into a page, crc32c
# verification headers every 4 KiB; output to OUT. Fails when fio fails
# or reports a bad block.
dio_fio() {
	local out=$1 align=$2 off=$3

	shift 3
	fio --name=dio --filename="$ZRAM_DEV" --ioengine=psync --direct=1 \
		--bs=64k --offset="${off}M" --size="${REGION_MB}M" \
		--iomem_align="$align" --verify=crc32c --verify_interval=4096 \
		"$@" >"$out" 2>&1 || return 1
	! grep -q -E 'verify failed|bad magic|bad header|err=[ ]*[1-9]' "$out"
}

# report OUT OFFSET_MB: fio's errors, then every bad 4 KiB of the region
# (fio stops at the first bad one of each 64 KiB read, so the region is
# verified once more with 4 KiB reads), counted by kind, and the bad
# pages of the first two writes.
report() {
	local out=$1 off=$2

	grep -E '^fio:|err=[ ]*[1-9]' "$out" | sed 's/^/# /' | head -3
	fio --name=dio4k --filename="$ZRAM_DEV" --ioengine=psync --direct=1 \
		--bs=4k --offset="${off}M" --size="${REGION_MB}M" \
		--verify=crc32c --verify_interval=4096 --rw=read --verify_only \
		--continue_on_error=verify 2>&1 |
		awk -v base=$((off * 1048576)) -v pages=$((REGION_MB * 256)) '
		/verify failed at file|bad magic header|bad header/ {
			match($0, /offset [0-9]+/)
			rel = substr($0, RSTART + 7, RLENGTH - 7) - base
			w = int(rel / 65536)
			p = (rel % 65536) / 4096 + 1
			if ($0 ~ /bad magic header 727a,/)
				old++
			else
				other++
			if (w < 2)
				list[w] = list[w] " " p
		}
		END {
			printf "# %d of %d 4 KiB pages bad: %d neither old nor new, %d old data\n",
				old + other, pages, other, old
			for (w = 0; w < 2; w++)
				if (list[w] != "")
					printf "# bad pages of 64 KiB write %d:%s\n", w, list[w]
		}'
}

writeback() {
	echo all >"$ZRAM_SYS/idle" && echo idle >"$ZRAM_SYS/writeback"
}

# written_back FIRST N: how many of the N slots from FIRST are on the
# backing device (debugfs block_state flag w); without block_state, the
# number of slots on the backing device.
written_back() {
	local f

	f=$(zram_block_state_file)
	if [ ! -r "$f" ]; then
		bd_count
		return
	fi
	awk -v a="$1" -v b="$(($1 + $2))" \
		'$1 >= a && $1 < b && $3 ~ /w/ { n++ } END { print n + 0 }' "$f"
}

zram_text_file $((REGION_MB * 256)) || ktap_bail "cannot make the old data"
region=0
for align in $ALIGNS; do
	for where in ram backing; do
		desc="64 KiB writes from page+$align over slots in RAM"
		[ "$where" = backing ] &&
			desc="64 KiB writes from page+$align over slots on the backing device"
		dd if="$TEXT_FILE" of="$ZRAM_DEV" bs=64k seek=$((region * 16)) \
			oflag=direct conv=notrunc 2>/dev/null ||
			ktap_bail "cannot write the old data"
		if [ "$where" = backing ]; then
			writeback || ktap_bail "writeback failed"
			n=$(written_back $((region * REGION_MB * 256)) $((REGION_MB * 256)))
			if [ "$n" -ge $((REGION_MB * 256)) ]; then
				ktap_ok "$desc: the old data was written back"
			else
				ktap_info "only $n slots of the region are on the backing device"
				ktap_not_ok "$desc: the old data was written back"
			fi
		fi

		if dio_fio "$tmp/w" "$align" "$region" --rw=write --do_verify=0; then
			ktap_ok "$desc: fio wrote them"
		else
			report "$tmp/w" "$region"
			ktap_not_ok "$desc: fio wrote them"
		fi

		if dio_fio "$tmp/r" 0 "$region" --rw=read --verify_only \
			--continue_on_error=verify; then
			ktap_ok "$desc: read back exactly (aligned buffer)"
		else
			report "$tmp/r" "$region"
			ktap_not_ok "$desc: read back exactly (aligned buffer)"
		fi

		from="RAM"
		if [ "$where" = backing ]; then
			writeback || ktap_bail "writeback failed"
			from="the backing device"
		fi
		reads=$(bd_reads)
		if dio_fio "$tmp/r" "$align" "$region" --rw=read --verify_only \
			--continue_on_error=verify; then
			ktap_ok "$desc: read back exactly (buffer at page+$align, from $from)"
		else
			report "$tmp/r" "$region"
			ktap_not_ok "$desc: read back exactly (buffer at page+$align, from $from)"
		fi
		# each slot is two partial bvecs, each a synchronous block read
		[ "$where" = backing ] &&
			ktap_eq "$desc: bd_reads counts two reads per slot read" \
				$(($(bd_reads) - reads)) $((2 * REGION_MB * 256))
		region=$((region + 1))
	done
done
ktap_info "bd_stat $(bd_stat)"
ktap_finish
