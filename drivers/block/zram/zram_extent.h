/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block-extent allocator over a bitmap of blocks (set bit: in use).
 * Knows no zram type: tools/testing/zram-unit builds it in user space.
 */
#ifndef _ZRAM_EXTENT_H_
#define _ZRAM_EXTENT_H_

#include <linux/types.h>

/* Blocks past the first free one a search may go looking for a full run. */
#define ZRAM_EXTENT_WINDOW	1024UL

/* Free runs one search visits at most, which bounds it when fragmented. */
#define ZRAM_EXTENT_MAX_RUNS	8

/**
 * struct zram_extent_cursor - where the next reservation looks (reserver's)
 * @next: block the next search starts at (next-fit)
 * @short_start: first block of the short region, where the last bounded
 *	search met only short runs: a reservation there takes the first one
 * @short_end: block after it; the region is empty when <= @short_start
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
bool zram_extent_reserve_at(unsigned long *bitmap, unsigned long nr_blocks,
			    struct zram_extent_cursor *cur, unsigned long block);
void zram_extent_release(unsigned long *bitmap, unsigned long start,
			 unsigned int len);
void zram_extent_unreserve(unsigned long *bitmap, unsigned long nr_blocks,
			   struct zram_extent_cursor *cur, unsigned long start,
			   unsigned int len);
/* Words of the pending bitmap one struct zram_extent_staged takes. */
#define ZRAM_EXTENT_STAGED_WORDS	240

/**
 * struct zram_extent_staged - pending frees taken for one grace period
 * @nr: entries used
 * @word: index of a word of the pending bitmap, ascending
 * @bits: the blocks of that word taken from it
 */
struct zram_extent_staged {
	unsigned long nr;
	unsigned long word[ZRAM_EXTENT_STAGED_WORDS];
	unsigned long bits[ZRAM_EXTENT_STAGED_WORDS];
};

unsigned long zram_extent_stage_frees(unsigned long *pending,
				      unsigned long nr_blocks,
				      unsigned long *from,
				      struct zram_extent_staged *staged);
unsigned long zram_extent_release_staged(unsigned long *bitmap,
					 struct zram_extent_staged *staged);

#endif /* _ZRAM_EXTENT_H_ */
