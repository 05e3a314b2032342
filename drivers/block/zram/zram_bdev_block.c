// SPDX-License-Identifier: GPL-2.0-only
/* Backing device blocks held by slots: packed blocks' state, freeing. */

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "zram.h"

/* To free_pending: a read may still pin it. Under a slot lock or pp_lock. */
static void zram_bdev_free_block(struct zram *zram, unsigned long block)
{
	struct zram_bdev *bd = &zram->backing;

	WARN_ON_ONCE(!test_bit(block, bd->bitmap));
	atomic_long_inc(&bd->nr_free_pending);
	if (WARN_ON_ONCE(test_and_set_bit(block, bd->free_pending)))
		atomic_long_dec(&bd->nr_free_pending);
	atomic64_dec(&zram->stats.bd_count);
}

/**
 * zram_bdev_pack_init - allocate the packing state of every block, and the
 *	reserve of packed reads
 * @zram: device being initialized; no-op without compressed_writeback or
 *	a backing device
 *
 * Context: process context, init_lock held for write; may sleep.
 * Return: 0 or -ENOMEM, with neither allocated.
 */
int zram_bdev_pack_init(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;
	int err;

	lockdep_assert_held_write(&zram->init_lock);
	if (!zram_wb_packs(&zram->wb) || !bd->bdev || bd->pack)
		return 0;
	/* A size the machine cannot hold is the admin's error: no warning. */
	bd->pack = kvcalloc(DIV_ROUND_UP(bd->nr_blocks, 2), sizeof(*bd->pack),
			    GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!bd->pack)
		return -ENOMEM;
	err = zram_bdev_read_reserve_init(zram);
	if (err) {
		kvfree(bd->pack);
		bd->pack = NULL;
	}
	return err;
}

/* The word holding @block's count and the count's shift in it. */
static atomic_t *zram_bdev_pack_state(struct zram *zram, unsigned long block,
				      unsigned int *shift)
{
	*shift = block % 2 * ZRAM_PACK_CNT_BITS;
	return &zram->backing.pack[block / 2];
}

/* Live objects in the block at @shift, from a value of its word. */
static unsigned int zram_bdev_pack_count(int val, unsigned int shift)
{
	return ((unsigned int)val >> shift) & (BIT(ZRAM_PACK_CNT_BITS) - 1);
}

/**
 * zram_bdev_pack_hold - a written block starts holding packed objects
 * @zram: device whose backing.pack exists
 * @block: block just written, reserved by the writeback, count 0
 * @nr_objs: objects with bytes in @block, 1 to %ZRAM_PACK_MAX_OBJS
 *
 * Context: zram.pp_lock held, before the slots are installed; no sleep.
 */
void zram_bdev_pack_hold(struct zram *zram, unsigned long block,
			 unsigned int nr_objs)
{
	unsigned int shift;
	atomic_t *state = zram_bdev_pack_state(zram, block, &shift);

	lockdep_assert_held(&zram->pp_lock);
	WARN_ON_ONCE(zram_bdev_pack_count(atomic_read(state), shift) ||
		     !nr_objs || nr_objs > ZRAM_PACK_MAX_OBJS);
	atomic_add(nr_objs << shift, state);
	atomic64_inc(&zram->stats.bd_count);
	atomic64_inc(&zram->stats.pk_blocks);
}

/*
 * The last object let go frees the block. A put of a count at 0 would
 * borrow from the other block of the word: refused.
 */
static void zram_bdev_pack_put(struct zram *zram, unsigned long block)
{
	unsigned int shift;
	atomic_t *state = zram_bdev_pack_state(zram, block, &shift);
	int old = atomic_read(state), new;

	do {
		if (WARN_ON_ONCE(!zram_bdev_pack_count(old, shift)))
			return;
		new = old - (1 << shift);
	} while (!atomic_try_cmpxchg(state, &old, new));
	if (zram_bdev_pack_count(new, shift))
		return;
	atomic64_dec(&zram->stats.pk_blocks);
	zram_bdev_free_block(zram, block);
}

/**
 * zram_bdev_put_loc - release the backing device storage of a slot
 * @zram: device
 * @loc: the slot's location, from zram_slot_wb_loc()
 *
 * Context: slot lock of the ZRAM_WB slot held (it keeps the bitmaps alive),
 * or the writeback that wrote @loc; never in irq context; never sleeps.
 */
void zram_bdev_put_loc(struct zram *zram, const struct zram_bdev_loc *loc)
{
	if (loc->len == PAGE_SIZE) {
		zram_bdev_free_block(zram, loc->block);
		return;
	}
	zram_bdev_pack_put(zram, loc->block);
	if (loc->next)
		zram_bdev_pack_put(zram, loc->next);
}
