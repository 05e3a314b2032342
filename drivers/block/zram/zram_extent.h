/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block-extent allocator for the zram backing device.
 *
 * The backing device is divided into 4 KiB blocks, tracked by a bitmap in
 * which a set bit means "block in use". This allocator only reads and
 * modifies that bitmap: it knows nothing about zram, bios or slots, so it
 * is also built in user space by tools/testing/zram-unit.
 */
#ifndef _ZRAM_EXTENT_H_
#define _ZRAM_EXTENT_H_

#include <linux/types.h>

/*
 * How far (in blocks) the search for a full-length extent goes past the
 * first free block it meets before settling for the longest shorter run
 * seen so far. Bounds the cost of one reservation on a fragmented bitmap.
 */
#define ZRAM_EXTENT_WINDOW	1024UL

/*
 * Most free runs one search visits before settling for the longest seen.
 * On a fragmented bitmap (say every other block used) the window alone
 * still lets a search visit about 512 one-block runs to hand out a single
 * block; this bounds it to a few bitops per run visited.
 */
#define ZRAM_EXTENT_MAX_RUNS	8

int zram_extent_reserve(unsigned long *bitmap, unsigned long nr_blocks,
			unsigned long *cursor, unsigned int max_len,
			unsigned long *start);
void zram_extent_release(unsigned long *bitmap, unsigned long start,
			 unsigned int len);
unsigned long zram_extent_stage_frees(unsigned long *pending,
				      unsigned long *staged,
				      unsigned long nr_blocks);
unsigned long zram_extent_release_staged(unsigned long *bitmap,
					 unsigned long *staged,
					 unsigned long nr_blocks);

#endif /* _ZRAM_EXTENT_H_ */
