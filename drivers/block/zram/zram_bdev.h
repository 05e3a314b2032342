/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram backing device (zram_bdev.c, zram_bdev_block.c). zram.h includes it
 * before struct zram is complete.
 */
#ifndef _ZRAM_BDEV_H_
#define _ZRAM_BDEV_H_

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mempool.h>
#include <linux/srcu.h>
#include <linux/atomic.h>
#include <linux/types.h>

struct file;
struct page;
struct zram;
struct zram_extent_staged;

/**
 * struct zram_bdev_loc - where a written-back slot's data is (slot lock)
 * @block: backing device block holding the data (never 0)
 * @next: block holding the rest of data that runs past @block, or 0
 * @offset: byte offset of the data in @block
 * @len: bytes of data; PAGE_SIZE for a whole page (offset 0, no @next)
 * @prio: priority of the compressor of a packed object, 0 for a whole page
 */
struct zram_bdev_loc {
	unsigned long block;
	unsigned long next;
	unsigned int offset;
	unsigned int len;
	u32 prio;
};

/**
 * struct zram_bdev_run - whole pages from consecutive blocks, one read
 * @bio: the backing read the pages so far go in, not yet submitted, or NULL
 * @next: the block that extends it
 * @left: pages it may still take (the backing device's limits)
 * @room: pages left in the zram bio from the current step on
 *
 * Owned by one call's serving of a zram read bio (zram_bio_serve()), which
 * submits it with zram_bdev_run_submit() before it returns.
 */
struct zram_bdev_run {
	struct bio *bio;
	unsigned long next;
	unsigned int left;
	unsigned int room;
};

#ifdef CONFIG_ZRAM_WRITEBACK

/**
 * struct zram_bdev - the backing device of one zram device
 * @bdev_file: the device, opened exclusively with zram as holder, or NULL.
 *	It, @bdev, @bdev_path, @bitmap and @nr_blocks change only under
 *	init_lock for write on an uninitialized device; readers hold
 *	init_lock, zram.pp_lock or the slot lock of a ZRAM_WB slot.
 * @bdev: block device of @bdev_file
 * @bdev_path: the path backing_dev shows (resolved)
 * @bitmap: one bit per block (a page), set unless released; bit 0 stays set
 *	(a ZRAM_WB handle of 0 would look empty); one allocation with the
 *	next, both changed by atomic bitops only
 * @free_pending: blocks freed under a slot lock that a read may still pin
 * @nr_blocks: bits in each bitmap
 * @read_srcu: pins a block from its reader's slot lock until the read
 *	completed (maybe in irq); a freed block is reused after a grace period
 * @read_bs: bio_set of chained reads; its front pad carries the pin
 * @read_ready: @read_srcu and @read_bs are initialized: set by the first
 *	attach, cleared by reset (which may run twice); init_lock held for write
 * @pack: per block, 16 bits of a word per two blocks, the live packed
 *	objects in the block (0: not a block of packed objects); allocated
 *	by zram_bdev_pack_init() when the device is initialized with
 *	compressed_writeback, freed with @bitmap
 * @pread_pool: reserve of packed read requests, so that blocking reads of
 *	packed slots make progress when memory is short; set up and freed
 *	with @pack
 * @pbuf_pool: reserve of their span buffers, of the largest span; as
 *	@pread_pool
 * @nr_free_pending: blocks freed since the last harvest; counted before
 *	the bit is set, so never below the bits set in @free_pending. Last,
 *	away from what reads of written-back slots touch
 */
struct zram_bdev {
	struct file *bdev_file;
	struct block_device *bdev;
	char *bdev_path;
	unsigned long *bitmap;
	unsigned long *free_pending;
	unsigned long nr_blocks;
	struct srcu_struct read_srcu;
	struct bio_set read_bs;
	bool read_ready;
	atomic_t *pack;
	mempool_t pread_pool;
	mempool_t pbuf_pool;
	atomic_long_t nr_free_pending;
};

/* Live objects of a packed block: a 16-bit count, two per atomic_t. */
#define ZRAM_PACK_CNT_BITS	16
#define ZRAM_PACK_MAX_OBJS	4095U

static inline sector_t zram_bdev_block_sector(unsigned long block)
{
	return (sector_t)block << (PAGE_SHIFT - SECTOR_SHIFT);
}

int zram_bdev_module_init(void);
void zram_bdev_module_exit(void);
int zram_bdev_attach(struct zram *zram, const char *path);
void zram_bdev_release(struct zram *zram);
void zram_bdev_read_exit(struct zram *zram);
bool zram_bdev_harvest(struct zram *zram, struct zram_extent_staged *staged);
void zram_bdev_meta_bytes(struct zram *zram, size_t *maps, size_t *pack,
			  size_t *reserve);
void zram_bdev_put_loc(struct zram *zram, const struct zram_bdev_loc *loc);
int zram_bdev_pack_init(struct zram *zram);
int zram_bdev_read_reserve_init(struct zram *zram);
void zram_bdev_pack_hold(struct zram *zram, unsigned long block,
			 unsigned int nr_objs);
int zram_bdev_read_pin(struct zram *zram);
int zram_bdev_read(struct zram *zram, struct page *page,
		   const struct zram_bdev_loc *loc, int pin, struct bio *bio,
		   struct zram_bdev_run *run, bool nowait);
void zram_bdev_run_submit(struct zram_bdev_run *run);

#else /* CONFIG_ZRAM_WRITEBACK */

struct zram_bdev {
};

static inline int zram_bdev_module_init(void)
{
	return 0;
}

static inline void zram_bdev_module_exit(void)
{
}

static inline void zram_bdev_put_loc(struct zram *zram,
				     const struct zram_bdev_loc *loc)
{
}

static inline int zram_bdev_pack_init(struct zram *zram)
{
	return 0;
}

static inline void zram_bdev_meta_bytes(struct zram *zram, size_t *maps,
					size_t *pack, size_t *reserve)
{
	*maps = 0;
	*pack = 0;
	*reserve = 0;
}

static inline int zram_bdev_read_pin(struct zram *zram)
{
	return 0;
}

static inline int zram_bdev_read(struct zram *zram, struct page *page,
				 const struct zram_bdev_loc *loc, int pin,
				 struct bio *bio, struct zram_bdev_run *run,
				 bool nowait)
{
	return -EIO;
}

static inline void zram_bdev_run_submit(struct zram_bdev_run *run)
{
}

#endif /* CONFIG_ZRAM_WRITEBACK */

#endif /* _ZRAM_BDEV_H_ */
