#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A REQ_NOWAIT partial write refused after its read half leaves no trace.
# Every 4 KiB pwritev2(RWF_NOWAIT) here (fio pvsync2) comes from a buffer
# 512 bytes into a page, so its first step is a read-modify-write of an
# idle slot in RAM: the read half decompresses the slot, the write half
# compresses the new page and stores it (zs_malloc). fio, marked
# make-it-fail, first has 40% of its allocations with zram code on the
# stack fail (failslab, fail_page_alloc: the bio's, the bounce page's and
# the write half's), then half of those under zs_malloc only, so that the
# write half fails after a read half succeeded. Each write either succeeds
# (the page holds the new data and is no longer idle) or fails with
# EAGAIN, and then the page's data and its debugfs block_state line
# (access time, idle mark) are as they were; the disk's stat counts the
# writes that succeeded, once each, and failed_writes none.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio od blkdiscard
zram_require_fault_injection failslab fail_page_alloc
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_require_block_state

pages=32
rounds=${ZRAM_FI_ROUNDS:-4}
work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# write PATTERN [FIO_OPTION...]: 4 KiB O_DIRECT writes of pages 0..pages-1,
# every byte from the 3-byte PATTERN (compressible, not same-filled);
# fio's JSON in $work/fio.json.
write() {
	local pattern=$1

	shift
	(cd "$work" && fio --name=partial --filename="$ZRAM_DEV" \
		--ioengine=pvsync2 --direct=1 --rw=write --bs=4k \
		--size=$((pages * 4))k --buffer_pattern="$pattern" \
		--output-format=json --output="$work/fio.json" "$@" \
		>"$work/fio.err" 2>&1)
}

# patterns: A, B or ? for each page, by the bytes it holds.
patterns() {
	dd if="$ZRAM_DEV" bs=4096 count="$pages" iflag=direct 2>/dev/null |
		od -An -tx1 -v -w4096 | awk '
		{
			a = b = 1
			for (i = 1; i <= NF; i++) {
				if ($i !~ /^a[123]$/)
					a = 0
				if ($i !~ /^b[123]$/)
					b = 0
			}
			printf "%s", a ? "A" : b ? "B" : "?"
		}
		END { print "" }'
}

# slot_lines: block_state lines of slots 0..pages-1, one per slot.
slot_lines() {
	awk -v n="$pages" '$1 < n' "$(zram_block_state_file)"
}

# Write I/Os, write sectors, failed_writes.
WRITES=(stat:5 stat:7 io_stat:2)

# check_round R: compares each page with what it was before the round
# ($work/before, its block_state line) and what it holds now; adds to
# bad, sets WRITTEN and REFUSED.
check_round() {
	local r=$1 got i line old

	# first: reading the pages records an access to each
	slot_lines >"$work/after"
	got=$(patterns)
	WRITTEN=0
	REFUSED=0
	for ((i = 0; i < pages; i++)); do
		line=$(awk -v n="$i" '$1 == n' "$work/after")
		old=$(awk -v n="$i" '$1 == n' "$work/before")
		case ${got:i:1} in
		B)
			WRITTEN=$((WRITTEN + 1))
			[[ $(awk '{ print $3 }' <<<"$line") != *i* ]] ||
				bad+=("round $r page $i: written, still idle: $line")
			;;
		A)
			REFUSED=$((REFUSED + 1))
			[ "$line" = "$old" ] ||
				bad+=("round $r page $i: refused, but '$old' became '$line'")
			;;
		*)
			bad+=("round $r page $i: torn")
			;;
		esac
	done
}

# round R PERCENT: pages 0..pages-1 written A and marked idle, then B
# written over them with RWF_NOWAIT from a misaligned buffer by fio, marked
# make-it-fail, PERCENT% of its allocations failing; checks the outcome
# (check_round, and the stat and fio's errors into bad and other).
# Sets WRITTEN, REFUSED and INJECTED (failures injected).
round() {
	local r=$1 before grew f0 err nerr

	write 0xa1a2a3 || ktap_bail "cannot write pattern A"
	echo all >"$ZRAM_SYS/idle"
	slot_lines >"$work/before"
	[ "$(wc -l <"$work/before")" = "$pages" ] ||
		ktap_bail "block_state lists $(wc -l <"$work/before") of $pages slots"
	before=$(zram_counters "${WRITES[@]}")
	zram_fi_count
	f0=$FI_COUNT
	zram_fi_random "$2"
	zram_fi_task fio --name=partial --filename="$ZRAM_DEV" \
		--ioengine=pvsync2 --direct=1 --rw=write --bs=4k \
		--size=$((pages * 4))k --buffer_pattern=0xb1b2b3 --nowait=1 \
		--iomem_align=512 --continue_on_error=write --ignore_error=,EAGAIN \
		--output-format=json --output="$work/fio.json" \
		>"$work/fio.err" 2>&1
	zram_fi_random 0
	zram_fi_count
	INJECTED=$((FI_COUNT - f0))
	check_round "$r"
	grew=$(zram_grew "$before" "$(zram_counters "${WRITES[@]}")")
	counts+=("${grew// /:}/$WRITTEN")
	[ "$grew" = "$WRITTEN $((WRITTEN * 8)) 0" ] ||
		bad+=("round $r: stat grew by writes, sectors, failed_writes" \
			"$grew, $WRITTEN pages written")
	err=$(zram_fio_json "$work/fio.json" job error)
	nerr=$(zram_fio_json "$work/fio.json" job total_err)
	case ${err:-missing}:$nerr in
	0:0 | 11:"$REFUSED") ;;
	*) other+=("round $r: first error ${err:-none}, $nerr errors, $REFUSED refused") ;;
	esac
	ktap_info "round $r: $WRITTEN written, $REFUSED refused (EAGAIN)," \
		"$INJECTED failures injected"
}

zram_fi_alloc_setup || ktap_bail "cannot set up fault injection"
zs_malloc=$(zram_symbol_range zs_malloc) ||
	ktap_skip_all "no zs_malloc in /proc/kallsyms"
write 0xc1c2c3 --nowait=1 --size=4k
[ "$(zram_fio_json "$work/fio.json" job error)" = 0 ] ||
	ktap_skip_all "RWF_NOWAIT refused: no BLK_FEAT_NOWAIT (stock 6.12)"

ktap_plan 7
bad=()
other=()
counts=()

# 1: any allocation in zram may fail (the bio's, the bounce page's, the
# write half's)
written=0
refused=0
for ((r = 1; r <= rounds; r++)); do
	round "zram-$r" 40
	written=$((written + WRITTEN))
	refused=$((refused + REFUSED))
done
ktap_eq "faults in zram: some writes were refused, some succeeded" \
	"$([ "$refused" -gt 0 ] && [ "$written" -gt 0 ] && echo both)" both

# 2: only allocations under zs_malloc fail: the write half, after the read
# half succeeded
zram_fi_require "$zs_malloc" || ktap_bail "cannot limit faults to zs_malloc"
ktap_info "then faults only under zs_malloc ${zs_malloc% *}-${zs_malloc#* }"
refused=0
injected=0
for ((r = 1; r <= rounds; r++)); do
	round "zs_malloc-$r" 50
	refused=$((refused + REFUSED))
	injected=$((injected + INJECTED))
done
ktap_eq "faults in zs_malloc: injected, and writes refused after their read half" \
	"$([ "$refused" -gt 0 ] && [ "$injected" -gt 0 ] && echo both)" both

ktap_eq "each write: new data, not idle; or EAGAIN and the slot as it was" \
	"${bad[*]}" ""
ktap_eq "fio's only errors are EAGAIN, one per refused page" "${other[*]}" ""
ktap_info "stat writes:sectors:failed_writes/pages written per round: ${counts[*]}"

# without faults, every page takes the new data
write 0xa1a2a3 || ktap_bail "cannot write pattern A"
write 0xb1b2b3 --nowait=1 --iomem_align=512
ktap_eq "without faults every RWF_NOWAIT write succeeds" \
	"$(zram_fio_json "$work/fio.json" job error) $(patterns)" \
	"0 $(printf 'B%.0s' $(seq "$pages"))"
blkdiscard "$ZRAM_DEV"
ktap_eq "orig_data_size 0 after discarding everything" "$(zram_field mm_stat 1)" 0
ktap_eq "compr_data_size 0 after discarding everything" "$(zram_field mm_stat 2)" 0
ktap_finish
