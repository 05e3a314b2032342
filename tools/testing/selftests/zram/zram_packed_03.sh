#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zram_nowait_05 with compressed_writeback on: io_uring write, writeback
# and verify cycles over a backing device that completes from a timer, as
# hardware does from an interrupt. A read of a packed slot is decompressed
# once its block reads completed, in process context; the io_uring read
# it serves must still complete with its data, never with EAGAIN from the
# completion, and every block verifies.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_require_packed
zram_nullb 512 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_require_fio_uring "$NULLB"

ktap_plan 11
echo 1 >"$ZRAM_SYS/compressed_writeback"
zram_uring_cycles "$NULLB"
ktap_info "bd_stat $(bd_stat), $(zram_wb_stat packed_objects) packed objects"
ktap_check "the cycles packed objects" test "$(zram_wb_stat packed_objects)" -gt 0
ktap_finish
