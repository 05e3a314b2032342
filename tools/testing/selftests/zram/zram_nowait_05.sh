#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# io_uring reads and writes of data that lives on a backing device which
# completes its requests from a timer, as hardware completes them from an
# interrupt (null_blk irqmode=2): fio writes, everything is written back,
# and fio reads it all back and verifies it (zram_uring_cycles). No I/O
# may fail: io_uring reissues an EAGAIN only when it comes back while the
# bio is being submitted, so a REQ_NOWAIT bio that already issued a read
# to the backing device must complete with its data, never with
# BLK_STS_AGAIN from the completion.

. "$(dirname "$0")/zram_lib.sh"

zram_require_cmd fio
zram_wb_device
zram_nullb 512 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create a null_blk with timer completions"
zram_require_fio_uring "$NULLB"

ktap_plan 10
zram_uring_cycles "$NULLB"
ktap_finish
