/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram writeback: the backing device, and moving slots from RAM to it.
 *
 * Included by zram_drv.h before struct zram is defined; it may only use
 * struct zram as an incomplete type.
 */
#ifndef _ZRAM_WB_H_
#define _ZRAM_WB_H_

#include <linux/bio.h>
#include <linux/cleanup.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/sysfs.h>
#include <linux/types.h>

#include "zram_extent.h"

struct bio;
struct block_device;
struct file;
struct page;
struct zram;

#ifdef CONFIG_ZRAM_WRITEBACK

/**
 * struct zram_wb - backing device and writeback state of one zram device
 * @lock: writeback mutex; one writeback runs at a time, a second one waits
 *	(killable). Held for the whole writeback, which does not hold
 *	init_lock; reset takes it before init_lock (lock order: @lock, then
 *	init_lock), so while it is held an initialized device stays
 *	initialized. Protects @cursor.
 * @bdev_file: the backing device, opened exclusively with the zram device
 *	as holder; NULL when none. @bdev_file, @bdev, @bdev_path, @bitmap and
 *	@nr_blocks are set only while the device is not initialized, and
 *	cleared only by reset, both with init_lock held for write; readers
 *	hold init_lock for read, or @lock on an initialized device, or a slot
 *	lock of a ZRAM_WB slot (which pins them, as reset frees every slot
 *	first), or are a writeback's commit work, which the writeback
 *	flushes before it returns.
 * @bdev: block device of @bdev_file
 * @bdev_path: path written to backing_dev, shown by it
 * @bitmap: one bit per 4 KiB block of the backing device, set while the
 *	block is in use, reserved or waiting in @free_pending/@free_staged;
 *	block 0 is never used (a ZRAM_WB handle of 0 would look empty), so
 *	its bit stays set. Bits change only by atomic bitops, see
 *	zram_extent.c. One allocation holds @bitmap, @free_pending and
 *	@free_staged.
 * @free_pending: blocks freed by zram_wb_free_block() (under the slot lock)
 *	that a reader may still be reading; set_bit() by the freer, moved to
 *	@free_staged by the writeback that holds @lock
 * @free_staged: blocks taken from @free_pending by the writeback holding
 *	@lock, released once @read_srcu had a grace period (under @lock)
 * @nr_blocks: number of bits in each bitmap
 * @cursor: next-fit cursor and short region of the block allocator
 *	(under @lock)
 * @read_srcu: pins blocks read by written-back slot reads: a reader takes
 *	srcu_down_read() under the slot lock and srcu_up_read() when its
 *	backing device read completed (possibly in irq context). A freed
 *	block is reused only after a synchronize_srcu() that started after
 *	the free, so it never changes under a read that saw it.
 * @read_bs: bio_set of the chained backing device reads; its front pad
 *	carries the pin to the completion
 * @read_ready: @read_srcu and @read_bs are initialized. Set by the first
 *	backing_dev store, cleared by reset, both with init_lock held for
 *	write; reset may run twice (hot_remove), the second one finds it
 *	clear
 * @limit_lock: protects @limit_enable, @limit and @limit_gen. A plain
 *	spinlock: only process context takes it.
 * @limit_enable: writeback_limit is enforced
 * @limit: remaining writeback budget in 4 KiB units
 * @limit_gen: bumped whenever @limit or @limit_enable is written, so that
 *	budget given back by a writeback never lands in a newer budget
 * @batch_size: bios kept in flight by one writeback (writeback_batch_size);
 *	WRITE_ONCE() by the store, sampled once at the start of each
 *	writeback, which keeps at most ZRAM_WB_MAX_INFLIGHT_PAGES in flight
 *	whatever it says
 * @max_bio_pages: most pages in one writeback bio (debugfs, benchmarks);
 *	sampled like @batch_size, clamped to 1..%ZRAM_WB_MAX_BIO_PAGES
 */
struct zram_wb {
	struct mutex lock;	/* serialises writebacks; guards @cursor */
	struct file *bdev_file;
	struct block_device *bdev;
	char *bdev_path;
	unsigned long *bitmap;
	unsigned long *free_pending;
	unsigned long *free_staged;
	unsigned long nr_blocks;
	struct zram_extent_cursor cursor;
	struct srcu_struct read_srcu;
	struct bio_set read_bs;
	bool read_ready;
	spinlock_t limit_lock;	/* guards @limit_* */
	bool limit_enable;
	u64 limit;
	u64 limit_gen;
	unsigned int batch_size;
	u32 max_bio_pages;
};

/* Waits for a running writeback and keeps new ones out (reset). */
DEFINE_GUARD(zram_wb, struct zram_wb *, mutex_lock(&_T->lock),
	     mutex_unlock(&_T->lock))

int zram_wb_module_init(void);
void zram_wb_module_exit(void);
void zram_wb_init(struct zram *zram);
void zram_wb_reset(struct zram *zram);
void zram_wb_free_block(struct zram *zram, unsigned long block);
int zram_wb_read_pin(struct zram *zram);
int zram_wb_read(struct zram *zram, struct page *page, unsigned long block,
		 int pin, struct bio *parent, bool nowait);

extern const struct attribute_group zram_wb_attr_group;

#else /* CONFIG_ZRAM_WRITEBACK */

struct zram_wb {
};

DEFINE_GUARD(zram_wb, struct zram_wb *, (void)_T, (void)_T)

static inline int zram_wb_module_init(void)
{
	return 0;
}

static inline void zram_wb_module_exit(void)
{
}

static inline void zram_wb_init(struct zram *zram)
{
}

static inline void zram_wb_reset(struct zram *zram)
{
}

static inline void zram_wb_free_block(struct zram *zram, unsigned long block)
{
}

static inline int zram_wb_read_pin(struct zram *zram)
{
	return 0;
}

static inline int zram_wb_read(struct zram *zram, struct page *page,
			       unsigned long block, int pin,
			       struct bio *parent, bool nowait)
{
	return -EIO;
}

/* Every file includes this; only zram_sysfs.c adds the (empty) group. */
static struct attribute *zram_wb_attrs_none[] __maybe_unused = {
	NULL,
};

static const struct attribute_group zram_wb_attr_group __maybe_unused = {
	.attrs = zram_wb_attrs_none,
};

#endif /* CONFIG_ZRAM_WRITEBACK */

#endif /* _ZRAM_WB_H_ */
