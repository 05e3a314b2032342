// SPDX-License-Identifier: GPL-2.0
/*
 * Block-extent allocator for the zram backing device.
 *
 * Concurrency: every change of a bit is an atomic bitop, and there is no
 * lock. Blocks may be released (clear_bit) while a reservation is
 * scanning; the functions here never sleep and may run in any context.
 * zram releases blocks only in process context: the writeback (unused
 * reservations, harvested frees, bios that failed, slots that changed
 * when their bio completed); freeing a written-back slot
 * (zram_bdev_free_block(), under a slot lock) only sets its bit in the pending
 * bitmap, see below. A concurrent release
 * can only turn a used bit into a free one, so a scan at worst misses a
 * block that just became free; that is tolerated, the block is found by a
 * later reservation.
 * Reservations are claimed with test_and_set_bit(), so two reservers can
 * never both own a block; zram serialises reservers anyway (one writeback
 * at a time), which keeps the retry below cold.
 *
 * Deferred frees: a block that readers may still be reading (a written-back
 * slot's block) is not released at once. Its owner sets its bit in a
 * "pending" bitmap instead (set_bit, any context). The single reserver
 * later moves the pending bits to a "staged" bitmap it alone owns
 * (zram_extent_stage_frees()), waits until no reader that could have seen
 * those blocks is left, and only then releases the staged blocks
 * (zram_extent_release_staged()). Bits set in pending after the staging
 * wait for the next round, so no block is released before the wait that
 * covers its readers.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/limits.h>

#include "zram_extent.h"

/**
 * struct zram_extent_found - what one search found
 * @start: first block of the longest free run met
 * @len: its length in blocks (not clamped to the length wanted); 0 when no
 *	block is free
 * @short_end: when a bound stopped the search before it wrapped to block
 *	0, the block after the last run it looked at; 0 otherwise
 */
struct zram_extent_found {
	unsigned long start;
	unsigned long len;
	unsigned long short_end;
};

/**
 * zram_extent_scan - find the best free run, searching from a cursor
 * @bitmap: block bitmap, a set bit is a block in use
 * @nr_blocks: number of blocks (bits) in @bitmap
 * @from: block where the search starts, below @nr_blocks
 * @max_len: a run this long (blocks) ends the search at once
 * @found: out, see struct zram_extent_found
 *
 * Visits free runs in next-fit order: those starting in [@from, @nr_blocks)
 * first, then those starting in [0, @from). A run never wraps from the last
 * block to block 0, since those blocks are not adjacent on the device. The
 * search stops at the first run of at least @max_len blocks, after
 * %ZRAM_EXTENT_MAX_RUNS runs, or once run starts lie more than
 * %ZRAM_EXTENT_WINDOW blocks past the first free block seen; it never
 * stops before finding a free block if there is one.
 *
 * Context: any; does not modify @bitmap.
 */
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
			end = find_next_bit(bitmap, nr_blocks, start);
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
	/* Every run starting in [@from, @pos) was looked at, all short. */
	if (!pass)
		found->short_end = pos;
}

/**
 * zram_extent_first_short - first free run in the short region
 * @bitmap: block bitmap
 * @nr_blocks: number of blocks in @bitmap
 * @cur: cursor whose short region to use
 * @from: block to start at
 * @found: out, the run (@found->short_end untouched)
 *
 * Context: any; does not modify @bitmap.
 * Return: true if @from lies in the short region and a free run starts
 * between @from and the region's end; false when a full search is due,
 * also when a concurrent reserver claimed the run's first block between
 * the two lookups.
 */
static bool zram_extent_first_short(const unsigned long *bitmap,
				    unsigned long nr_blocks,
				    const struct zram_extent_cursor *cur,
				    unsigned long from,
				    struct zram_extent_found *found)
{
	unsigned long start;

	if (from < cur->short_start || from >= cur->short_end)
		return false;
	start = find_next_zero_bit(bitmap, cur->short_end, from);
	if (start >= cur->short_end)
		return false;
	found->start = start;
	found->len = find_next_bit(bitmap, nr_blocks, start) - start;
	return found->len != 0;
}

/**
 * zram_extent_claim - mark a run of blocks in use
 * @bitmap: block bitmap
 * @start: first block of the run
 * @len: blocks in the run, at least 1
 *
 * Claims blocks in ascending order and stops at the first block somebody
 * else claimed since the scan.
 *
 * Context: any.
 * Return: number of blocks claimed from @start, 0 to @len.
 */
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
 * @bitmap: block bitmap of @nr_blocks bits, a set bit is a block in use
 * @nr_blocks: number of 4 KiB blocks on the backing device
 * @cur: in/out cursor; the search starts at @cur->next, which is left
 *	just past the reserved run (0 past the last block)
 * @max_len: longest run wanted (blocks), at least 1
 * @start: out, first block of the reserved run
 *
 * Next-fit with a bounded best-fit fallback: takes the first run of
 * @max_len free blocks met from @cur->next onwards (wrapping to block 0),
 * otherwise the longest shorter run among the first %ZRAM_EXTENT_MAX_RUNS
 * runs within the search window, down to a single block. Inside the short
 * region that such a fallback leaves in @cur, takes the first free run
 * instead (see struct zram_extent_cursor). The caller owns the reserved
 * blocks and gives back any it does not use with zram_extent_release().
 *
 * Context: any; never sleeps. Safe against concurrent releases; callers
 * should serialise reservations among themselves (see top of file).
 * Return: number of blocks reserved (1 to @max_len), or -ENOSPC when no
 * block is free, or -EINVAL when @max_len is 0.
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
					     &found)) {
			zram_extent_scan(bitmap, nr_blocks, from, max_len,
					 &found);
			cur->short_start = from;
			cur->short_end = found.short_end;
		}
		if (!found.len)
			return -ENOSPC;
		if (found.len > max_len)
			found.len = max_len;
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
 * zram_extent_release - give back reserved or used blocks
 * @bitmap: block bitmap
 * @start: first block to release
 * @len: number of blocks to release, may be 0
 *
 * Context: any, including hardirq; never sleeps.
 */
void zram_extent_release(unsigned long *bitmap, unsigned long start,
			 unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		clear_bit(start + i, bitmap);
}

/**
 * zram_extent_stage_frees - take the pending frees for release
 * @pending: bitmap of blocks freed but maybe still being read; bits are set
 *           concurrently from any context
 * @staged: bitmap of blocks taken for the next release, owned by the
 *          caller (the single reserver)
 * @nr_blocks: number of bits in both bitmaps
 *
 * Moves every bit set in @pending to @staged: each is cleared in @pending
 * with test_and_clear_bit() before being set in @staged, so a bit set
 * concurrently is either moved now or left for the next call, never lost.
 *
 * Context: any; never sleeps. Calls must be serialised with each other and
 * with zram_extent_release_staged() on the same @staged.
 * Return: number of blocks now staged that were not before.
 */
unsigned long zram_extent_stage_frees(unsigned long *pending,
				      unsigned long *staged,
				      unsigned long nr_blocks)
{
	unsigned long block, nr = 0;

	for_each_set_bit(block, pending, nr_blocks) {
		if (!test_and_clear_bit(block, pending))
			continue;
		if (!test_and_set_bit(block, staged))
			nr++;
	}
	return nr;
}

/**
 * zram_extent_release_staged - release the staged blocks
 * @bitmap: block bitmap
 * @staged: blocks taken by zram_extent_stage_frees(); all cleared here
 * @nr_blocks: number of bits in both bitmaps
 *
 * The caller has made sure that nobody still reads a staged block.
 *
 * Context: any; never sleeps. Serialised with zram_extent_stage_frees().
 * Return: number of blocks released.
 */
unsigned long zram_extent_release_staged(unsigned long *bitmap,
					 unsigned long *staged,
					 unsigned long nr_blocks)
{
	unsigned long block, nr = 0;

	for_each_set_bit(block, staged, nr_blocks) {
		clear_bit(block, staged);
		clear_bit(block, bitmap);
		nr++;
	}
	return nr;
}
