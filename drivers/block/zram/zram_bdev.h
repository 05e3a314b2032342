/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram backing device (zram_bdev.c, zram_bdev_block.c): attaching and
 * releasing it, the bitmap of its 4 KiB blocks and their lifetime, and
 * reading written-back slots from it.
 *
 * Included by zram.h before struct zram is defined; it may only use struct
 * zram as an incomplete type.
 */
#ifndef _ZRAM_BDEV_H_
#define _ZRAM_BDEV_H_

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/srcu.h>
#include <linux/types.h>

struct file;
struct page;
struct zram;

/**
 * struct zram_bdev_loc - where a written-back slot's data is
 * @block: the backing device block holding the data (never 0)
 * @next: the second block of data that runs past the end of @block, or 0
 * @offset: byte offset of the data in @block
 * @len: bytes of data; PAGE_SIZE for a whole page, which starts at offset
 *	0 of @block and has no @next
 * @prio: priority of the compressor that made a packed object, which a
 *	read decompresses it with (0: the primary one); 0 for a whole page
 *
 * Read from the slot with zram_slot_wb_loc() under its slot lock.
 */
struct zram_bdev_loc {
	unsigned long block;
	unsigned long next;
	unsigned int offset;
	unsigned int len;
	u32 prio;
};

#ifdef CONFIG_ZRAM_WRITEBACK

/**
 * struct zram_bdev - the backing device of one zram device
 * @bdev_file: the backing device, opened exclusively with the zram device
 *	as holder; NULL when none. @bdev_file, @bdev, @bdev_path, @bitmap and
 *	@nr_blocks are set only while the device is not initialized, and
 *	cleared only by reset, both with init_lock held for write; readers
 *	hold init_lock for read, or zram.pp_lock on an initialized device, or
 *	a slot lock of a ZRAM_WB slot (which pins them, as reset frees every
 *	slot first).
 * @bdev: block device of @bdev_file
 * @bdev_path: path written to backing_dev, shown by it
 * @bitmap: one bit per 4 KiB block of the backing device, set while the
 *	block is in use, reserved or waiting in @free_pending/@free_staged;
 *	block 0 is never used (a ZRAM_WB handle of 0 would look empty), so
 *	its bit stays set. Bits change only by atomic bitops, see
 *	zram_extent.c. One allocation holds @bitmap, @free_pending and
 *	@free_staged.
 * @free_pending: blocks freed by zram_bdev_free_block() (under the slot lock)
 *	that a reader may still be reading; set_bit() by the freer, moved to
 *	@free_staged by the writeback that holds zram.pp_lock
 * @free_staged: blocks taken from @free_pending by the writeback holding
 *	zram.pp_lock, released once @read_srcu had a grace period (under
 *	that lock)
 * @nr_blocks: number of bits in each bitmap
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
 * @pack: per block, the packing state of a block holding packed objects
 *	(see zram_bdev_pack_hold()), 0 for any other block; NULL until the
 *	first packed writeback allocates it (zram_bdev_pack_init(), under
 *	zram.pp_lock), freed with @bitmap. Readers are the holders of a
 *	packed slot's slot lock and a writeback committing its requests,
 *	which only exist after the allocation.
 */
struct zram_bdev {
	struct file *bdev_file;
	struct block_device *bdev;
	char *bdev_path;
	unsigned long *bitmap;
	unsigned long *free_pending;
	unsigned long *free_staged;
	unsigned long nr_blocks;
	struct srcu_struct read_srcu;
	struct bio_set read_bs;
	bool read_ready;
	atomic_t *pack;
};

/*
 * Packing state of a block (zram_bdev.pack): the live objects with bytes
 * in it in the low ZRAM_PACK_CNT_BITS bits, the bytes of objects written
 * into it above. A writer puts at most ZRAM_PACK_MAX_OBJS objects into
 * one block.
 */
#define ZRAM_PACK_CNT_BITS	12
#define ZRAM_PACK_MAX_OBJS	((1U << ZRAM_PACK_CNT_BITS) - 1)

/* First sector of a backing device block. */
static inline sector_t zram_bdev_block_sector(unsigned long block)
{
	return (sector_t)block << (PAGE_SHIFT - SECTOR_SHIFT);
}

int zram_bdev_module_init(void);
void zram_bdev_module_exit(void);
int zram_bdev_attach(struct zram *zram, const char *path);
void zram_bdev_release(struct zram *zram);
void zram_bdev_read_exit(struct zram *zram);
bool zram_bdev_harvest(struct zram *zram);
void zram_bdev_put_loc(struct zram *zram, const struct zram_bdev_loc *loc);
int zram_bdev_pack_init(struct zram *zram);
void zram_bdev_pack_hold(struct zram *zram, unsigned long block,
			 unsigned int nr_objs, unsigned int bytes);
int zram_bdev_read_pin(struct zram *zram);
int zram_bdev_read(struct zram *zram, struct page *page,
		   const struct zram_bdev_loc *loc, int pin, struct bio *parent,
		   bool nowait);

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

static inline int zram_bdev_read_pin(struct zram *zram)
{
	return 0;
}

static inline int zram_bdev_read(struct zram *zram, struct page *page,
				 const struct zram_bdev_loc *loc, int pin,
				 struct bio *parent, bool nowait)
{
	return -EIO;
}

#endif /* CONFIG_ZRAM_WRITEBACK */

#endif /* _ZRAM_BDEV_H_ */
