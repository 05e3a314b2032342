#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zram_wb_06 with compressed_writeback on: reads of packed slots racing
# with the free of their objects and the reuse of their blocks (once the
# last object in a block is gone) return the old or the new data of their
# own slot, never another slot's: the read pin covers both blocks of an
# object.

ZRAM_WB06_PACKED=1 exec "$(dirname "$0")/zram_wb_06.sh"
