// SPDX-License-Identifier: GPL-2.0
/*
 * Block-extent allocator. No lock: atomic bitops only; callers serialise
 * reservations. A block that may still be read is freed into a pending
 * bitmap, which the reserver stages and releases once its readers are gone.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/limits.h>

#include "zram_extent.h"

/*
 * Longest free run met (@len 0: none), measured up to the length wanted;
 * @short_end: see zram_extent_scan().
 */
struct zram_extent_found {
	unsigned long start;
	unsigned long len;
	unsigned long short_end;
};

/* Where measuring a free run from @start may stop: @max_len on, or the end. */
static unsigned long zram_extent_limit(unsigned long start,
				       unsigned long max_len,
				       unsigned long nr_blocks)
{
	return nr_blocks - start > max_len ? start + max_len : nr_blocks;
}

/* Next-fit from @from; a run never wraps to block 0; ZRAM_EXTENT_* bound it. */
static void zram_extent_scan(const unsigned long *bitmap,
			     unsigned long nr_blocks, unsigned long from,
			     unsigned long max_len,
			     struct zram_extent_found *found)
{
	unsigned long deadline = ULONG_MAX;
	unsigned long lo, hi, pos, start, end, dist;
	unsigned int runs = 0;
	int pass;

	found->start = 0;
	found->len = 0;
	found->short_end = 0;
	for (pass = 0; pass < 2; pass++) {
		lo = pass ? 0 : from;
		hi = pass ? from : nr_blocks;
		for (pos = lo; pos < hi; pos = end) {
			start = find_next_zero_bit(bitmap, hi, pos);
			if (start >= hi)
				break;
			dist = pass ? nr_blocks - from + start : start - from;
			if (dist > deadline)
				goto bounded;
			/* No further than @max_len: a run may span the device. */
			end = find_next_bit(bitmap,
					    zram_extent_limit(start, max_len,
							      nr_blocks),
					    start);
			if (end - start > found->len) {
				found->start = start;
				found->len = end - start;
				if (found->len >= max_len)
					return;
			}
			if (++runs >= ZRAM_EXTENT_MAX_RUNS) {
				pos = end;
				goto bounded;
			}
			if (deadline == ULONG_MAX)
				deadline = dist + ZRAM_EXTENT_WINDOW;
		}
	}
	return;

bounded:
	/* Before the wrap: runs from @from to @pos were all short. */
	if (!pass)
		found->short_end = pos;
}

/* The first free run from @from in the short region; false: search in full. */
static bool zram_extent_first_short(const unsigned long *bitmap,
				    unsigned long nr_blocks,
				    const struct zram_extent_cursor *cur,
				    unsigned long from, unsigned long max_len,
				    struct zram_extent_found *found)
{
	unsigned long start;

	if (from < cur->short_start || from >= cur->short_end)
		return false;
	start = find_next_zero_bit(bitmap, cur->short_end, from);
	if (start >= cur->short_end)
		return false;
	found->start = start;
	found->len = find_next_bit(bitmap,
				   zram_extent_limit(start, max_len, nr_blocks),
				   start) - start;
	return found->len != 0;
}

/* Claims from @start up to a block someone claimed since the scan. */
static unsigned long zram_extent_claim(unsigned long *bitmap,
				       unsigned long start, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i++) {
		if (test_and_set_bit(start + i, bitmap))
			break;
	}
	return i;
}

/**
 * zram_extent_reserve - reserve a run of contiguous free blocks
 * @bitmap: block bitmap, a set bit is a block in use
 * @nr_blocks: bits in @bitmap (blocks)
 * @cur: cursor; @cur->next is left just past the run (0 past the end)
 * @max_len: longest run wanted, in blocks, at least 1
 * @start: out, first block of the run
 *
 * Next-fit; else the longest shorter run a bounded search met.
 *
 * Context: any; never sleeps. Callers serialise reservations.
 * Return: blocks reserved (1 to @max_len), -ENOSPC or -EINVAL (@max_len 0).
 */
int zram_extent_reserve(unsigned long *bitmap, unsigned long nr_blocks,
			struct zram_extent_cursor *cur, unsigned int max_len,
			unsigned long *start)
{
	struct zram_extent_found found;
	unsigned long from, len;

	if (!max_len)
		return -EINVAL;

	for (;;) {
		from = cur->next < nr_blocks ? cur->next : 0;
		if (!zram_extent_first_short(bitmap, nr_blocks, cur, from,
					     max_len, &found)) {
			zram_extent_scan(bitmap, nr_blocks, from, max_len,
					 &found);
			cur->short_start = from;
			cur->short_end = found.short_end;
		}
		if (!found.len)
			return -ENOSPC;
		len = zram_extent_claim(bitmap, found.start, found.len);
		if (len)
			break;
	}

	*start = found.start;
	cur->next = found.start + len;
	if (cur->next >= nr_blocks)
		cur->next = 0;
	return len;
}

/**
 * zram_extent_reserve_at - reserve one given block if it is free
 * @bitmap: block bitmap, a set bit is a block in use
 * @nr_blocks: bits in @bitmap (blocks)
 * @cur: cursor; moved past @block when it pointed at it
 * @block: the block wanted; @nr_blocks or more gives false
 *
 * Context: any; never sleeps. Callers serialise reservations.
 * Return: true when @block was free and is now reserved.
 */
bool zram_extent_reserve_at(unsigned long *bitmap, unsigned long nr_blocks,
			    struct zram_extent_cursor *cur, unsigned long block)
{
	if (block >= nr_blocks || test_and_set_bit(block, bitmap))
		return false;
	if (cur->next == block)
		cur->next = block + 1 < nr_blocks ? block + 1 : 0;
	return true;
}

/**
 * zram_extent_unreserve - give back the unused end of a reservation
 * @bitmap: block bitmap
 * @nr_blocks: bits in @bitmap (blocks)
 * @cur: cursor; moved back to @start when it is at most ZRAM_EXTENT_WINDOW
 *	blocks past @start + @len, with only blocks in use between
 * @start: first block
 * @len: number of blocks, may be 0
 *
 * Next-fit then takes the blocks again first.
 *
 * Context: any; never sleeps. Callers serialise reservations.
 */
void zram_extent_unreserve(unsigned long *bitmap, unsigned long nr_blocks,
			   struct zram_extent_cursor *cur, unsigned long start,
			   unsigned int len)
{
	unsigned long end, next;

	if (!len)
		return;
	zram_extent_release(bitmap, start, len);
	end = start + len;
	next = cur->next ? cur->next : nr_blocks;
	if (next >= end && next - end <= ZRAM_EXTENT_WINDOW &&
	    find_next_zero_bit(bitmap, next, end) >= next)
		cur->next = start;
}

/**
 * zram_extent_release - give back reserved or used blocks
 * @bitmap: block bitmap
 * @start: first block
 * @len: number of blocks, may be 0
 *
 * Context: any; never sleeps.
 */
void zram_extent_release(unsigned long *bitmap, unsigned long start,
			 unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		clear_bit(start + i, bitmap);
}

/**
 * zram_extent_stage_frees - take pending frees until @staged is full
 * @pending: blocks freed but maybe still read; set concurrently
 * @nr_blocks: bits in @pending
 * @from: first block to look at; on return, the block to go on from
 *	(@nr_blocks once every pending free was looked at)
 * @staged: the taken blocks, added to its entries; owned by the caller
 *
 * A taken block stays set in the block bitmap until the release.
 *
 * Context: any; never sleeps. Serialised with zram_extent_release_staged().
 * Return: number of blocks newly staged.
 */
unsigned long zram_extent_stage_frees(unsigned long *pending,
				      unsigned long nr_blocks,
				      unsigned long *from,
				      struct zram_extent_staged *staged)
{
	unsigned long block, word, nr = 0;

	for (block = find_next_bit(pending, nr_blocks, *from);
	     block < nr_blocks;
	     block = find_next_bit(pending, nr_blocks, block + 1)) {
		word = BIT_WORD(block);
		if (!staged->nr || staged->word[staged->nr - 1] != word) {
			if (staged->nr == ZRAM_EXTENT_STAGED_WORDS)
				break;
			staged->word[staged->nr] = word;
			staged->bits[staged->nr++] = 0;
		}
		if (!test_and_clear_bit(block, pending))
			continue;
		staged->bits[staged->nr - 1] |= BIT_MASK(block);
		nr++;
	}
	*from = block;
	return nr;
}

/**
 * zram_extent_release_staged - release the staged blocks, once unread
 * @bitmap: block bitmap
 * @staged: blocks from zram_extent_stage_frees(); emptied here
 *
 * Context: any; never sleeps. Serialised with zram_extent_stage_frees().
 * Return: number of blocks released.
 */
unsigned long zram_extent_release_staged(unsigned long *bitmap,
					 struct zram_extent_staged *staged)
{
	unsigned long i, bit, nr = 0;

	for (i = 0; i < staged->nr; i++) {
		for_each_set_bit(bit, &staged->bits[i], BITS_PER_LONG) {
			clear_bit(staged->word[i] * BITS_PER_LONG + bit, bitmap);
			nr++;
		}
	}
	staged->nr = 0;
	return nr;
}
