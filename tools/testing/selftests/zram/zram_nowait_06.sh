#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The io_uring verify cycles of zram_nowait_05.sh over a backing device
# without nowait support whose completions are delayed: dm-delay (1 ms)
# over a null_blk that completes from a timer. A REQ_NOWAIT bio then
# cannot read a written-back slot without blocking: it must either be
# refused before anything was done (io_uring reissues it) or, once part
# of it was served, be finished by a worker. No I/O may fail.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_dm
modprobe dm-delay >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 512 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_dm delay "0 $(zram_sectors "$NULLB") delay $NULLB 0 1" ||
	ktap_skip_all "cannot create a dm-delay device"
zram_require_fio_uring "$NULLB"

ktap_plan 10
# 16 MiB a cycle (zram_scaled), not 48: stock 6.12 writes back one page
# at a time, synchronously, through the 1 ms delay, and its writebacks run
# during the whole cycle.
zram_uring_cycles "$DM" "$(zram_scaled 16 4)M"
ktap_finish
