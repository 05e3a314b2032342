#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocking reads of packed objects make progress when memory is short.
# 2 MiB of compressible pages (fio's crc32c headers over a text pattern)
# are written back packed, some objects running into the next block. Then
# every slab allocation with zram code on the stack fails (failslab at
# 100%, for the reader marked make-it-fail; not under the backing driver's
# code), so each read request and span buffer comes from the reserve:
#  - psync 64 KiB O_DIRECT reads: 16 packed objects per bio, more than
#    the reserve holds, so the rest of each bio is queued again behind the
#    reads it issued (the disk's stat counts more reads than bios);
#  - io_uring 64 KiB reads at queue depth 16: each REQ_NOWAIT attempt is
#    refused, and io_uring's workers read blocking;
#  - psync reads into buffers 512 bytes into a page: every step is partial,
#    a synchronous read.
# Each returns the data written, and failed_reads stays unchanged. Twice:
# over a null_blk completing from a timer (20 us), and over dm-delay on
# it (bio-based: its bios wait on bio_list as zram's do). A read that
# takes its memory from kmalloc() alone fails with EIO here.

# shellcheck disable=SC2317 # the phases run through faulted
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_dm
zram_require_fault_injection failslab fail_page_alloc
zram_pv_init
pages=512
size=$((pages * 4))k
bios=$((pages / 16))
# the data: compressible, not same-filled
pattern='"zram packed read"%o'

# faulted NAME CMD...: CMD run marked make-it-fail, every slab allocation
# in zram failing; CMD's status. Adds "NAME:FAILURES " to INJECTED.
faulted() {
	local name=$1 f0 rc

	shift
	zram_fi_count
	f0=$FI_COUNT
	zram_fi_random 100
	zram_fi_task "$@"
	rc=$?
	zram_fi_random 0
	zram_fi_count
	INJECTED+="$name:$((FI_COUNT - f0)) "
	return "$rc"
}

# verify NAME [FIO_OPTION...]: faulted fio job NAME reads back and checks
# the data; sets RESULT to "ok" or what went wrong.
verify() {
	local name=$1 ios

	shift
	if ! faulted "$name" zram_pv_verify "$ZRAM_DEV" wb 0 "$size" \
		--bs=64k --verify_pattern="$pattern" "$@"; then
		sed 's/^/# fio: /' "$ZRAM_PV_WORK/fio.err" | head -5
		RESULT="fio failed: error $(zram_pv_json job error)"
		return
	fi
	ios=$(zram_pv_json read total_ios)
	RESULT="$ios reads of $bios"
	[ "$ios" = "$bios" ] && RESULT=ok
}

# round KIND BACKING REJECT: the checks over BACKING, a fresh zram
# device; the faults spare the code of module REJECT.
round() {
	local kind=$1 failed0 reads0 grew objects want

	zram_packed_attach "$2" 16M
	zram_pv_job "$ZRAM_DEV" wb 0 "$size" --bs=64k \
		--verify_pattern="$pattern" || ktap_bail "cannot write $pages pages"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back"
	objects=$(zram_wb_stat packed_objects)
	ktap_info "$kind: $objects packed objects in $(bd_count) blocks"
	ktap_eq "$kind: setup: every page is a packed object" "$objects" "$pages"
	want=$(zram_read_all "$ZRAM_DEV" "$pages")
	failed0=$(zram_counters io_stat:1)
	zram_fi_alloc_setup "$3" || ktap_bail "cannot set up fault injection"
	# slab only: a partial read's bounce page is not what this is about
	FI_KINDS=(failslab)
	INJECTED=

	reads0=$(zram_counters stat:1)
	verify psync --ioengine=psync
	grew=$(zram_grew "$reads0" "$(zram_counters stat:1)")
	ktap_eq "$kind: psync 64 KiB reads verify" "$RESULT" ok
	ktap_info "$kind: $grew read I/Os for $bios bios"
	ktap_check "$kind: the bios were queued again (more read I/Os than bios)" \
		test "$grew" -gt "$bios"
	verify io_uring --ioengine=io_uring --iodepth=16
	ktap_eq "$kind: io_uring 64 KiB reads at depth 16 verify" "$RESULT" ok
	verify partial --ioengine=psync --iomem_align=512
	ktap_eq "$kind: reads into buffers 512 bytes into a page verify" \
		"$RESULT" ok
	ktap_info "$kind: allocation failures injected: $INJECTED"
	ktap_eq "$kind: allocations were failed in every phase; failed_reads unchanged" \
		"$(grep -c ':0 ' <<<"$INJECTED") $(zram_counters io_stat:1)" \
		"0 $failed0"
	ktap_eq "$kind: without faults the device reads as written" \
		"$(zram_read_all "$ZRAM_DEV" "$pages")" "$want"
}

ktap_plan 14
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
round null_blk "$NULLB" null_blk
zram_delay_dev irqmode=2 completion_nsec=20000
round dm-delay "$DM" dm_mod
ktap_finish
