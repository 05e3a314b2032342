#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A REQ_NOWAIT write is all or nothing: pages 0-15 hold pattern A, page 8
# is written back; then one 64 KiB pwritev2(RWF_NOWAIT) of pattern B from
# a buffer that starts 512 (and 3584) bytes into a page. Every page is
# then split over two bvecs, so each slot is written by read-modify-write,
# and page 8's needs a backing device read, which cannot be done without
# blocking. The write must succeed with all 16 pages B, or fail with EAGAIN
# with all 16 pages still A; never a mix. The disk's stat
# (/sys/block/zramN/stat) counts it once when it succeeds, not at all when
# refused. A 4 KiB write of page 8 alone, from the same misaligned buffer,
# cannot do its first step, nor can a read into it: each fails with EAGAIN
# and leaves no trace (page 8 still A, its block_state line, the stat,
# failed_writes and bd_reads unchanged, nothing left in flight). Stock
# 6.12 refuses RWF_NOWAIT (no BLK_FEAT_NOWAIT): the test skips.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_skip_all "cannot set backing_dev"
zram_init 16M || ktap_skip_all "cannot set disksize"

work=$(mktemp -d /tmp/zram-torn.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"

# pwrite PATTERN [FIO_OPTION...]: one 64 KiB O_DIRECT write at offset 0
# (zram_fio_pattern); fio's error number (0, 11 for EAGAIN, ...) is
# printed.
pwrite() {
	zram_fio_pattern "$work" "$1" --bs=64k --size=64k "${@:2}"
	zram_fio_json "$work/fio.json" job error
}

# page_patterns: for each of pages 0-15, A, B or "?" by its bytes.
page_patterns() {
	zram_page_patterns "$ZRAM_DEV" 16
}

# Write I/Os, write sectors, failed_writes; read I/Os, read sectors,
# bd_reads; and the I/Os in flight (stat:9), 0 again once a bio has
# ended or been refused.
WRITES=(stat:5 stat:7 io_stat:2 stat:9)
READS=(stat:1 stat:3 bd_stat:2 stat:9)

[ "$(pwrite 0xc1c2c3 --nowait=1)" = 0 ] ||
	ktap_skip_all "RWF_NOWAIT refused: no BLK_FEAT_NOWAIT (stock 6.12)"

ktap_plan 14
for offset in 512 3584; do
	[ "$(pwrite 0xa1a2a3)" = 0 ] || ktap_bail "cannot write pattern A"
	echo page_index=8 >"$ZRAM_SYS/writeback" ||
		ktap_bail "cannot write back page 8"
	ktap_eq "buffer +$offset: setup, page 8 on the backing device" \
		"$(bd_count)" 1
	before=$(zram_counters "${WRITES[@]}")
	err=$(pwrite 0xb1b2b3 --nowait=1 --iomem_align="$offset")
	grew=$(zram_grew "$before" "$(zram_counters "${WRITES[@]}")")
	got=$(page_patterns)
	ktap_info "buffer +$offset: fio error $err, pages $got"
	case $err:$got in
	0:BBBBBBBBBBBBBBBB | 11:AAAAAAAAAAAAAAAA)
		ktap_ok "buffer +$offset: the write is all or nothing" ;;
	*)
		ktap_not_ok "buffer +$offset: the write is all or nothing" ;;
	esac
	ktap_eq "buffer +$offset: the write succeeded (finished by a worker)" \
		"$err" 0
	case $err in
	0) want="1 128 0 0" ;;
	*) want="0 0 0 0" ;;
	esac
	ktap_eq "buffer +$offset: the disk's stat counts it once if it succeeded" \
		"$grew" "$want"
done

# page 8 alone: its only step needs a backing device read, so a write or
# read of it from a misaligned buffer is refused before anything is done
[ "$(pwrite 0xa1a2a3)" = 0 ] || ktap_bail "cannot write pattern A"
echo page_index=8 >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back page 8"
state0=$(zram_slot_state 8)
before=$(zram_counters "${WRITES[@]}")
err=$(pwrite 0xb1b2b3 --nowait=1 --iomem_align=512 --offset=32k --bs=4k \
	--size=4k)
grew=$(zram_grew "$before" "$(zram_counters "${WRITES[@]}")")
before=$(zram_counters "${READS[@]}")
rerr=$(pwrite 0xb1b2b3 --rw=read --nowait=1 --iomem_align=512 --offset=32k \
	--bs=4k --size=4k)
rgrew=$(zram_grew "$before" "$(zram_counters "${READS[@]}")")
state1=$(zram_slot_state 8)
ktap_eq "page 8 alone: the write fails with EAGAIN" "$err" 11
ktap_eq "page 8 alone: the refused write counts nowhere (stat, failed_writes)" \
	"$grew" "0 0 0 0"
ktap_eq "page 8 alone: a read into the same buffer fails with EAGAIN" "$rerr" 11
ktap_eq "page 8 alone: the refused read counts nowhere (stat, bd_reads)" \
	"$rgrew" "0 0 0 0"
if [ -z "$state0" ]; then
	ktap_skip "page 8 alone: its block_state line unchanged" "no debugfs block_state"
else
	ktap_eq "page 8 alone: its block_state line unchanged" "$state1" "$state0"
fi
ktap_eq "page 8 alone: every page still A" "$(page_patterns)" AAAAAAAAAAAAAAAA
ktap_finish
