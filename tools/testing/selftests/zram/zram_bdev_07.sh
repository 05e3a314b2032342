#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reads from the backing device are charged to the cgroup of the reader:
# its io.max, io.latency and io.cost limits on the backing device apply to
# them. From a child cgroup with the io controller, 16 O_DIRECT reads of
# slots written back to a null_blk: 8 of whole pages (the backing read is
# chained to the zram bio) and 8 in two partial bio_vecs each (a worker
# reads the slot synchronously, once for each bio_vec). The cgroup's
# io.stat for the null_blk counts as many reads as the null_blk's own
# statistics and bd_stat's bd_reads do.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_cgroup io || ktap_skip_all "no cgroup v2 io controller"
work=$(mktemp -d /tmp/zram-bdev7.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_skip_all "cannot set backing_dev"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_cgroup rd || ktap_skip_all "cannot create a cgroup"
nullb_dev=$(cat "/sys/block/$(basename "$NULLB")/dev")

# read_slot SLOT [FIO_OPTION...]: one 4 KiB O_DIRECT read of SLOT
read_slot() {
	local slot=$1

	shift
	fio --name=rd --filename="$ZRAM_DEV" --ioengine=psync --direct=1 \
		--rw=read --bs=4k --size=4k --offset=$((slot * 4096)) \
		"$@" >/dev/null 2>&1
}

# cg_reads: reads of the null_blk charged to the cgroup (io.stat rios)
cg_reads() {
	awk -v d="$nullb_dev" '$1 == d {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^rios=/) { sub(/rios=/, "", $i); print $i; exit }
	}' "$CG/io.stat"
}

# nullb_reads: read I/Os the null_blk completed
nullb_reads() {
	zram_disk_stat "$NULLB" 1
}

ktap_plan 5
zram_fill_pages "$ZRAM_DEV" 0 16 text
sum=$(zram_read_all "$ZRAM_DEV" 16)
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back"
ktap_eq "setup: 16 slots on the backing device" "$(bd_count)" 16

reads=$(bd_reads)
dev_reads=$(nullb_reads)
(
	echo "$BASHPID" >"$CG/cgroup.procs" || exit 1
	for s in 0 1 2 3 4 5 6 7; do
		read_slot "$s" || exit 1
	done
	# a buffer 512 bytes into a page: two partial bio_vecs
	for s in 8 9 10 11 12 13 14 15; do
		read_slot "$s" --iomem_align=512 || exit 1
	done
)
rc=$?
issued=$(($(nullb_reads) - dev_reads))
ktap_info "backing reads: $issued issued, bd_reads $(($(bd_reads) - reads))"
ktap_eq "the 16 reads succeeded, bd_reads counts every backing read" \
	"$rc $(($(bd_reads) - reads))" "0 $issued"
ktap_check "every slot read from the backing device ($issued reads)" \
	test "$issued" -ge 16
ktap_info "io.stat: $(grep "^$nullb_dev " "$CG/io.stat")"
ktap_eq "the reader's cgroup is charged with every backing read" \
	"$(cg_reads)" "$issued"
ktap_eq "data intact" "$(zram_read_all "$ZRAM_DEV" 16)" "$sum"
ktap_finish
