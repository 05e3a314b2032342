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
 * zram_bdev_pack_init - allocate the packing state of every block
 * @zram: initialized device with a backing device
 *
 * Context: process context, zram.pp_lock held; may sleep.
 * Return: 0 or -ENOMEM.
 */
int zram_bdev_pack_init(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held(&zram->pp_lock);
	/* The field holding a block's bytes takes PAGE_SIZE. */
	BUILD_BUG_ON(PAGE_SIZE >= 1UL << (32 - ZRAM_PACK_CNT_BITS));
	if (bd->pack)
		return 0;
	bd->pack = kvcalloc(bd->nr_blocks, sizeof(*bd->pack), GFP_KERNEL);
	return bd->pack ? 0 : -ENOMEM;
}

/**
 * zram_bdev_pack_hold - a written block starts holding packed objects
 * @zram: device whose backing.pack exists
 * @block: block just written, reserved by the writeback, state 0
 * @nr_objs: objects with bytes in @block, at most %ZRAM_PACK_MAX_OBJS
 * @bytes: bytes of those objects in @block
 *
 * Context: zram.pp_lock held, before the slots are installed; no sleep.
 */
void zram_bdev_pack_hold(struct zram *zram, unsigned long block,
			 unsigned int nr_objs, unsigned int bytes)
{
	atomic_t *state = &zram->backing.pack[block];

	lockdep_assert_held(&zram->pp_lock);
	WARN_ON_ONCE(atomic_read(state) || !nr_objs ||
		     nr_objs > ZRAM_PACK_MAX_OBJS);
	atomic_set(state, bytes << ZRAM_PACK_CNT_BITS | nr_objs);
	atomic64_inc(&zram->stats.bd_count);
	atomic64_inc(&zram->stats.pk_blocks);
}

/* The last object let go frees the block and its dead bytes. */
static void zram_bdev_pack_put(struct zram *zram, unsigned long block,
			       unsigned int bytes)
{
	atomic_t *state = &zram->backing.pack[block];
	int val;

	atomic64_add(bytes, &zram->stats.pk_dead_bytes);
	val = atomic_dec_return(state);
	if (val & ZRAM_PACK_MAX_OBJS)
		return;
	atomic_set(state, 0);
	atomic64_sub((unsigned int)val >> ZRAM_PACK_CNT_BITS,
		     &zram->stats.pk_dead_bytes);
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
	unsigned int first = min_t(unsigned int, loc->len,
				   PAGE_SIZE - loc->offset);

	if (loc->len == PAGE_SIZE) {
		zram_bdev_free_block(zram, loc->block);
		return;
	}
	zram_bdev_pack_put(zram, loc->block, first);
	if (loc->next)
		zram_bdev_pack_put(zram, loc->next, loc->len - first);
}
