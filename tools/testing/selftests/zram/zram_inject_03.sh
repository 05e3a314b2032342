#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures inside zram under io_uring (REQ_NOWAIT first, then
# the io-wq reissue): fio, marked make-it-fail, reads back and verifies
# 64 KiB blocks written back to a null_blk and blocks still in RAM, and
# rewrites a third region, while 10% of its allocations with zram code on
# the stack fail and idle writebacks run. An I/O either completes with
# the right data or fails with EIO, ENOMEM or EAGAIN: fio finds no wrong
# data, and without faults every block still verifies, the regions fio
# rewrote too once written again; bd_count matches the written-back slots
# and once everything is discarded no block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio blkdiscard
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_fi_uring_reads whole
