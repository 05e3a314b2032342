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
# rounds per phase, zram_scaled (ZRAM_FI_ROUNDS sets them)
rounds=${ZRAM_FI_ROUNDS:-$(zram_scaled 4 2)}
work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# write PATTERN [FIO_OPTION...]: 4 KiB O_DIRECT writes of pages
# 0..pages-1 (zram_fio_pattern); fio's JSON in $work/fio.json.
write() {
	zram_fio_pattern "$work" "$1" --bs=4k --size=$((pages * 4))k "${@:2}"
}

# patterns: A, B or ? for each page, by the bytes it holds.
patterns() {
	zram_page_patterns "$ZRAM_DEV" "$pages"
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
	local r=$1 got line

	# first: reading the pages records an access to each
	slot_lines >"$work/after"
	got=$(patterns)
	line=${got//[^B]/}
	WRITTEN=${#line}
	line=${got//[^A]/}
	REFUSED=${#line}
	while IFS= read -r line; do
		bad+=("round $r $line")
	done < <(awk -v got="$got" -v n="$pages" -v q="'" '
		FILENAME == ARGV[1] { old[$1] = $0; next }
		{ new[$1] = $0; flags[$1] = $3 }
		END {
			for (i = 0; i < n; i++) {
				c = substr(got, i + 1, 1)
				if (c == "B" && flags[i] ~ /i/)
					print "page " i ": written, still idle: " new[i]
				else if (c == "A" && new[i] != old[i])
					printf "page %d: refused, but %s became %s\n",
						i, q old[i] q, q new[i] q
				else if (c != "A" && c != "B")
					print "page " i ": torn"
			}
		}' "$work/before" "$work/after")
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
	zram_fi_task write 0xb1b2b3 --nowait=1 --iomem_align=512 \
		--continue_on_error=write --ignore_error=,EAGAIN
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

# phase NAME PERCENT: the rounds NAME-1 to NAME-rounds at PERCENT%; sums
# their WRITTEN, REFUSED and INJECTED into PH_WRITTEN, PH_REFUSED and
# PH_INJECTED.
phase() {
	local r

	PH_WRITTEN=0
	PH_REFUSED=0
	PH_INJECTED=0
	for ((r = 1; r <= rounds; r++)); do
		round "$1-$r" "$2"
		PH_WRITTEN=$((PH_WRITTEN + WRITTEN))
		PH_REFUSED=$((PH_REFUSED + REFUSED))
		PH_INJECTED=$((PH_INJECTED + INJECTED))
	done
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
phase zram 40
ktap_eq "faults in zram: some writes were refused, some succeeded" \
	"$([ "$PH_REFUSED" -gt 0 ] && [ "$PH_WRITTEN" -gt 0 ] && echo both)" both

# 2: only allocations under zs_malloc fail: the write half, after the read
# half succeeded
zram_fi_filter "$zs_malloc" || ktap_bail "cannot limit faults to zs_malloc"
ktap_info "then faults only under zs_malloc ${zs_malloc% *}-${zs_malloc#* }"
phase zs_malloc 50
ktap_eq "faults in zs_malloc: injected, and writes refused after their read half" \
	"$([ "$PH_REFUSED" -gt 0 ] && [ "$PH_INJECTED" -gt 0 ] && echo both)" both

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
