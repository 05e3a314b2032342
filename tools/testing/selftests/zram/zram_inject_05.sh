#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zram_inject_03 with compressed_writeback on: allocation failures inside
# zram under io_uring while fio reads back and verifies packed objects
# written back to a null_blk (their read buffer, their bios), reads
# blocks still in RAM and rewrites a third region, with idle writebacks
# (packing) running. An I/O either completes with the right data or
# fails with EIO, ENOMEM or EAGAIN; without faults everything verifies;
# bd_count matches the blocks the written-back slots hold, and once
# everything is discarded no block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio blkdiscard
zram_require_nullb
zram_require_fault_injection failslab fail_page_alloc
zram_fi_uring_reads packed
