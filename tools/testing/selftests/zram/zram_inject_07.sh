#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A REQ_NOWAIT bio never allocates with a GFP that may sleep. fio, marked
# make-it-fail, issues RWF_NOWAIT O_DIRECT I/O while every allocation
# that cannot sleep fails (failslab and fail_page_alloc at 100%, with
# ignore-gfp-wait: an allocation allowed to sleep is never failed), and
# only allocations under one zram function fail (and none under a
# second one), one function per row (static ones are often inlined, so
# the nearest caller that kallsyms lists):
#   zs_malloc                      whole-page writes over slots in RAM
#   zram_submit_bio, not           64 KiB writes (the hand-over to a
#     zram_bio_serve               worker, allocated up front)
#   zram_bio_serve, not zs_malloc  4 KiB writes from a buffer 512 bytes
#                                  into a page (bounce page)
#   zram_bio_serve                 4 KiB reads into such a buffer
#   zram_bdev_read                 reads of packed written-back slots
#                                  (the read's buffer and its bios)
# Every such I/O must fail with EAGAIN and change nothing: one that gets
# through had allocated with a sleeping GFP (or with none). The same I/O
# without RWF_NOWAIT then succeeds under the same faults, its allocations
# being allowed to sleep, and faults were really injected. Stock 6.12
# refuses RWF_NOWAIT (no BLK_FEAT_NOWAIT); the packed row needs
# compressed_writeback: both skip.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio od dd
zram_require_fault_injection failslab fail_page_alloc
zram_wb_device
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
packed=
if zram_attr_exists compressed_writeback; then
	echo 1 >"$ZRAM_SYS/compressed_writeback" ||
		ktap_skip_all "cannot set compressed_writeback"
	packed=1
fi
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_skip_all "cannot set backing_dev"
zram_init 16M || ktap_skip_all "cannot set disksize"

work=$(mktemp -d /tmp/zram-gfp.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# Pages 0-15 serve every row; the last one writes them back packed first.
pages=16

# fio_io RW PATTERN [FIO_OPTION...]: 4 KiB O_DIRECT I/O of pages 0-15
# (zram_fio_pattern, RW read or write, reads verifying PATTERN), by a task
# marked make-it-fail; EAGAIN does not stop fio. Prints fio's first error
# (0: none, 11: EAGAIN) and its error count.
fio_io() {
	local verify=()

	[ "$1" = read ] &&
		verify=(--verify=pattern --verify_pattern="$2" --do_verify=1)
	zram_fi_task zram_fio_pattern "$work" "$2" --rw="$1" --bs=4k \
		--size=$((pages * 4))k "${verify[@]}" --continue_on_error=all \
		--ignore_error=EAGAIN,EAGAIN "${@:3}"
	echo "$(zram_fio_json "$work/fio.json" job error)" \
		"$(zram_fio_json "$work/fio.json" job total_err)"
}

patterns() {
	zram_page_patterns "$ZRAM_DEV" "$pages"
}

# what patterns prints when every page holds A, or B
A=$(printf 'A%.0s' $(seq "$pages"))
B=${A//A/B}

[ "$(zram_fio_pattern "$work" 0xa1a2a3 --bs=4k --size=4k --nowait=1 &&
	zram_fio_json "$work/fio.json" job error)" = 0 ] ||
	ktap_skip_all "RWF_NOWAIT refused: no BLK_FEAT_NOWAIT (stock 6.12)"

zram_fi_alloc_setup || ktap_bail "cannot set up fault injection"
for k in failslab fail_page_alloc; do
	zram_fi_set "$k" ignore-gfp-wait Y || ktap_bail "cannot set ignore-gfp-wait"
done

# The functions of the rows, as "START END" ranges.
declare -A range
for f in zs_malloc zram_submit_bio zram_bio_serve zram_bdev_read; do
	range[$f]=$(zram_symbol_range "$f") ||
		ktap_skip_all "no $f in /proc/kallsyms"
done

# faults_under FUNCTION [NOT_UNDER]: only allocations with FUNCTION on the
# stack fail, and none with NOT_UNDER on it.
faults_under() {
	local reject="0 0"

	[ -z "${2:-}" ] || reject=${range[$2]}
	zram_fi_filter "${range[$1]}" "$reject" ||
		ktap_bail "cannot limit faults to $1${2:+, not $2}"
}

# row NAME IOS RW PATTERN WANT [FIO_OPTION...]: with faults on, each of
# the IOS RWF_NOWAIT I/Os fio makes of pages 0-15 must fail with EAGAIN,
# and pages 0-15 must then read as WANT; then the same I/O without
# RWF_NOWAIT must succeed, faults still on. Reads verify PATTERN; writes
# write it.
row() {
	local name=$1 ios=$2 rw=$3 pattern=$4 want=$5 got f0 injected

	shift 5
	zram_fi_count
	f0=$FI_COUNT
	zram_fi_random 100
	got=$(fio_io "$rw" "$pattern" --nowait=1 "$@")
	zram_fi_random 0
	zram_fi_count
	injected=$((FI_COUNT - f0))
	ktap_info "$name: RWF_NOWAIT: fio's first error and error count $got," \
		"$injected failures injected"
	ktap_eq "$name: each RWF_NOWAIT I/O fails with EAGAIN, nothing changes" \
		"$got $(patterns)" "11 $ios $want"
	ktap_eq "$name: failures were injected, one per I/O at least" \
		"$([ "$injected" -ge "$ios" ] && echo yes)" yes
	zram_fi_random 100
	got=$(fio_io "$rw" "$pattern" "$@")
	zram_fi_random 0
	ktap_eq "$name: without RWF_NOWAIT it succeeds (it may sleep)" \
		"$got $(patterns)" "0 0 $B"
}

# write_a: pages 0-15 hold pattern A, in RAM.
write_a() {
	zram_fio_pattern "$work" 0xa1a2a3 --bs=4k --size=$((pages * 4))k ||
		ktap_bail "cannot write pattern A"
}

ktap_plan $((5 * 3 + 1))

write_a
faults_under zs_malloc
row "whole-page writes (zs_malloc)" "$pages" write 0xb1b2b3 "$A"

write_a
faults_under zram_submit_bio zram_bio_serve
row "64 KiB writes (hand-over to a worker)" 1 write 0xb1b2b3 "$A" --bs=64k

write_a
faults_under zram_bio_serve zs_malloc
row "misaligned writes (bounce page)" "$pages" write 0xb1b2b3 "$A" \
	--iomem_align=512

faults_under zram_bio_serve
row "misaligned reads (bounce page)" "$pages" read 0xb1b2b3 "$B" \
	--iomem_align=512

if [ -n "$packed" ]; then
	zram_fio_pattern "$work" 0xb1b2b3 --bs=4k --size=$((pages * 4))k ||
		ktap_bail "cannot write pattern B"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back"
	ktap_info "written back: bd_stat $(cat "$ZRAM_SYS/bd_stat")," \
		"packed objects $(zram_wb_stat packed_objects)"
	faults_under zram_bdev_read
	row "reads of packed slots (buffer, bios)" "$pages" read 0xb1b2b3 "$B"
else
	ktap_skip_n 3 "reads of packed slots" "no compressed_writeback"
fi
ktap_eq "bd_count matches the written-back slots" \
	"$(zram_blocks_consistent && echo yes)" yes
ktap_finish
