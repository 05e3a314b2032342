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

/**
 * struct zram_extent_cursor - where the next reservation looks
 * @next: next-fit position: the block the next search starts at
 * @short_start: first block of the short region
 * @short_end: block after the short region; the region is empty when
 *	@short_end <= @short_start
 *
 * The short region is what the last full search found fragmented: it
 * stopped at a bound, and every free run starting in [@short_start,
 * @short_end) was shorter than it wanted. While @next lies in the region,
 * a reservation takes the first free run from @next on, without looking
 * at the same short runs again; a full search resumes past the region.
 * A run that grows there after the search (blocks released meanwhile) is
 * not preferred, which only costs bio size; zram_extent_forget_short()
 * drops the region, which zram does after each harvest of freed blocks.
 * Single releases (failed bios, changed slots) leave it in place, and it
 * may outlive a writeback.
 *
 * Owned by the reserver: callers serialise reservations (zram_extent.c).
 */
struct zram_extent_cursor {
	unsigned long next;
	unsigned long short_start;
	unsigned long short_end;
};

/* Drops the short region: the next reservation searches in full. */
static inline void zram_extent_forget_short(struct zram_extent_cursor *cur)
{
	cur->short_start = 0;
	cur->short_end = 0;
}

int zram_extent_reserve(unsigned long *bitmap, unsigned long nr_blocks,
			struct zram_extent_cursor *cur, unsigned int max_len,
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
