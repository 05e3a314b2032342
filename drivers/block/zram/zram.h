/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram: compressed RAM block device. The device, its slots and their
 * states, shared by every file of the driver.
 *
 * Files:
 *   zram_drv.c      a device's life: add, init, reset, remove; the module
 *   zram_sysfs.c    device attributes        zram_debugfs.c  block_state
 *   zram_slot.c     slot lock and state      zram_obj.c      objects
 *   zram_bio.c      the bio path             zcomp.c         compressors
 *   zram_bdev.c     the backing device       zram_extent.c   block allocation
 *   zram_bdev_block.c  giving its blocks back (whole pages, packed objects)
 *   zram_wb.c       the writeback engine     zram_wb_sysfs.c its attributes
 *   zram_wb_req.c   writeback requests       zram_wb_pack.c  packed writeback
 *   zram_recomp.c   recompression (CONFIG_ZRAM_MULTI_COMP)
 *   backend_*.c     one compression library each, behind struct zcomp_ops
 *
 * Locking, outermost first; a lock is taken only with none or those above
 * it held:
 *   zram_index_mutex (zram_drv.c): the device ids; held over add, remove.
 *   disk->open_mutex: zram.claim; brief, never held waiting for a lock below.
 *   zram.pp_lock (mutex): one writeback or recompression, for its whole
 *	run, init_lock only to start; a second one waits (killable). Reset
 *	takes it first, so the device stays initialized while it is held.
 *   zram.init_lock (rwsem): write side configures, initializes and resets;
 *	read side keeps the device initialized. Never on the I/O path.
 *   zram_wb_ctl.lock (irq spinlock, zram_wb_internal.h): writeback requests.
 *   the slot lock (bit ZRAM_SLOT_LOCK of the slot's flags, a spinning
 *	bit lock; zram_slot.h): every field of one slot; one at a time,
 *	never in irq context, nothing sleeps under it; REQ_NOWAIT I/O only
 *	tries it.
 *   zcomp_strm.lock (local_lock): this CPU's stream; may nest in a slot
 *	lock. Softirq streams (packed reads) are a class of their own,
 *	taken under no other lock.
 *   zram_wb.limit_lock (spinlock): the writeback_limit budget.
 * Ordering rules: backing.read_srcu pins a written-back block from its
 * reader's slot lock until the read completes; a freed block is reused
 * only after a grace period. The I/O path reads @table, @mem_pool and
 * @comps without a lock once a bio passed the capacity checks: init
 * publishes them before the capacity (smp_mb()), and zram_submit_bio()
 * reads them after its smp_rmb().
 */

#ifndef _ZRAM_H_
#define _ZRAM_H_

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/zsmalloc.h>

#include "zcomp.h"

struct zram;

#include "zram_bdev.h"
#include "zram_wb.h"

#define SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define SECTORS_PER_PAGE	BIT(SECTORS_PER_PAGE_SHIFT)
#define ZRAM_LOGICAL_BLOCK_SHIFT 12
#define ZRAM_LOGICAL_BLOCK_SIZE	BIT(ZRAM_LOGICAL_BLOCK_SHIFT)

/*
 * flags: object size in bytes (up to PAGE_SIZE), then enum zram_pageflags,
 * in the low 32 bits; on 64-bit the access time takes the high 32 bits.
 */
#define ZRAM_FLAG_SHIFT		(PAGE_SHIFT + 1)
#define ZRAM_OBJ_SIZE_MASK	((1UL << ZRAM_FLAG_SHIFT) - 1)
#define ZRAM_COMP_PRIO_MASK	0x3UL
#define ZRAM_ACTIME_SHIFT	32

/*
 * Slot state bits, under the slot lock, written only by zram_slot.c. A
 * stored slot is same-filled (ZRAM_SAME), on the backing device (ZRAM_WB)
 * or a zsmalloc object (neither); zram_slot_free() clears every bit but
 * the lock.
 */
enum zram_pageflags {
	/* the page is one repeated unsigned long, kept in handle */
	ZRAM_SAME = ZRAM_FLAG_SHIFT,
	/* on the backing device at block handle; a whole page unless packed */
	ZRAM_WB,
	/* with ZRAM_WB: the compressed object, see "Packed slots" */
	ZRAM_PACKED,
	/* picked by the running writeback (pp_lock holder), not committed */
	ZRAM_WB_SELECTED,
	/* stored uncompressed in a PAGE_SIZE zsmalloc object */
	ZRAM_HUGE,
	/* set by the idle store, cleared by any access */
	ZRAM_IDLE,
	/* the highest secondary algorithm could not shrink it; not retried */
	ZRAM_INCOMPRESSIBLE,
	/* priority of the compressor that made the object, kept when packed */
	ZRAM_COMP_PRIO_BIT0,
	ZRAM_COMP_PRIO_BIT1,
	/* the slot lock, owned by zram_slot_lock() and its siblings */
	ZRAM_SLOT_LOCK,
	__NR_ZRAM_PAGEFLAGS,
};

/*
 * Packed slots (compressed_writeback): a writeback request writes its
 * slots' compressed objects back to back over its blocks in order, so an
 * object lies in one block or runs into the request's next block, which
 * may lie a gap further on. A packed slot (ZRAM_WB | ZRAM_PACKED) keeps its
 * length in bytes (below PAGE_SIZE) in the ZRAM_OBJ_SIZE_MASK bits and its
 * compressor priority in ZRAM_COMP_PRIO_BIT0/1, as in RAM, and in handle:
 *   bits 0 to PAGE_SHIFT - 1     byte offset in the first block
 *   next ZRAM_LOC_GAP_BITS       gap: the second block is first + 1 + gap
 *   the bits above               first block (never 0)
 */
#define ZRAM_LOC_GAP_BITS	16

/* False on 32-bit: too few bits would be left for the block. */
static inline bool zram_loc_supported(void)
{
	return BITS_PER_LONG - PAGE_SHIFT - ZRAM_LOC_GAP_BITS >= 32;
}

/* Largest gap a packed slot holds. */
static inline unsigned long zram_loc_gap_max(void)
{
	return BIT(ZRAM_LOC_GAP_BITS) - 1;
}

/*
 * Two shifts, each below BITS_PER_LONG: ZRAM_LOC_BLOCK_SHIFT is not, on
 * 32-bit with large pages (where zram_loc_supported() is false).
 */
static inline unsigned long zram_loc_block_max(void)
{
	return (ULONG_MAX >> PAGE_SHIFT) >> ZRAM_LOC_GAP_BITS;
}

static inline unsigned long zram_loc_block(unsigned long handle)
{
	return (handle >> PAGE_SHIFT) >> ZRAM_LOC_GAP_BITS;
}

static inline unsigned long zram_loc_gap(unsigned long handle)
{
	return (handle >> PAGE_SHIFT) & zram_loc_gap_max();
}

static inline unsigned int zram_loc_offset(unsigned long handle)
{
	return handle & (PAGE_SIZE - 1);
}

/* The handle of a packed slot; arguments within the maxima above. */
static inline unsigned long zram_loc_handle(unsigned long block,
					    unsigned int offset,
					    unsigned long gap)
{
	return (block << ZRAM_LOC_GAP_BITS | gap) << PAGE_SHIFT | offset;
}

/**
 * struct zram_table_entry - one slot, one PAGE_SIZE block of the disk
 * @handle: zsmalloc handle, ZRAM_SAME value, ZRAM_WB block or packed
 *	location; 0 when empty
 * @flags: object size, enum zram_pageflags with the slot lock bit; on
 *	64-bit also the access time (CONFIG_ZRAM_TRACK_ENTRY_ACTIME)
 * @ac_time: 32-bit only, the access time
 * @rt_lock: PREEMPT_RT only, the slot lock (zsmalloc's locks sleep there)
 *
 * Every field, lock bit aside, is under the slot lock. The access time is
 * in boottime seconds, 0 when empty.
 */
struct zram_table_entry {
	unsigned long handle;
	unsigned long flags;
#if defined(CONFIG_ZRAM_TRACK_ENTRY_ACTIME) && BITS_PER_LONG == 32
	u32 ac_time;
#endif
#ifdef CONFIG_PREEMPT_RT
	spinlock_t rt_lock;	/* the slot lock on PREEMPT_RT */
#endif
};

/* Lockdep's view of a device's slot locks: one class, see zram_slot.h. */
struct zram_slot_lockdep {
	struct lockdep_map dep_map;
};

/* In pages unless noted; atomics read without a lock, so values may mix. */
struct zram_stats {
	atomic64_t compr_data_size;	/* bytes held in zsmalloc objects */
	atomic64_t failed_reads;	/* failed read bios, failed backing reads */
	atomic64_t failed_writes;	/* write bios ended with an error */
	atomic64_t notify_free;		/* swap free notifications, discards */
	atomic64_t same_pages;		/* slots stored as ZRAM_SAME */
	atomic64_t huge_pages;		/* slots stored as ZRAM_HUGE */
	atomic64_t huge_pages_since;	/* ZRAM_HUGE stores since init */
	atomic64_t pages_stored;	/* slots holding data (any state) */
	atomic_long_t max_used_pages;	/* peak zsmalloc pool size */
	atomic64_t miss_free;		/* notify_free lost to a busy slot */
#ifdef CONFIG_ZRAM_WRITEBACK
	atomic64_t bd_count;		/* blocks in use on the backing device */
	atomic64_t bd_reads;		/* blocks read from the backing device */
	atomic64_t bd_writes;		/* blocks written to the backing dev */
	atomic64_t wb_bios_large_folio;	/* writeback bios of one folio */
	atomic64_t wb_bios_order0_folios; /* ... of order-0 folios */
	atomic64_t pk_objects;		/* slots stored packed */
	atomic64_t pk_bytes;		/* bytes of their objects */
	atomic64_t pk_blocks;		/* blocks holding packed objects */
	atomic64_t pk_split_reads;	/* packed reads of two blocks apart */
#endif
};

/**
 * struct zram - one zram device
 * @table: disksize >> PAGE_SHIFT slots, NULL when not initialized; it,
 *	@mem_pool, @comps and @huge_class_size are set at init and freed at
 *	reset under init_lock for write; each entry is under its slot lock
 * @slot_lock: lockdep map of every slot lock of the device
 * @mem_pool: zsmalloc pool of the objects
 * @comps: compressor per configured priority; the primary compresses writes
 * @comp_conf: algorithm and parameters per priority; written under
 *	init_lock for write, only while not initialized
 * @disk: the gendisk, from zram_add() to zram_remove()
 * @pp_lock: see Locking; also guards zram_wb.cursor
 * @init_lock: see Locking
 * @disksize: size in bytes, 0 when not initialized; under init_lock
 * @limit_pages: pool cap in pages, 0 for none; written under init_lock,
 *	READ_ONCE() on the I/O path
 * @huge_class_size: compressed size in bytes from which a page is huge
 * @stats: statistics
 * @claim: reset or removal owns the closed device, opens fail with -EBUSY;
 *	under disk->open_mutex
 * @debugfs_dir: debugfs directory (CONFIG_ZRAM_MEMORY_TRACKING)
 * @backing: backing device, owned by zram_bdev.c and zram_bdev_block.c
 * @wb: writeback state, owned by zram_wb.c
 */
struct zram {
	struct zram_table_entry *table;
	struct zram_slot_lockdep slot_lock;
	struct zs_pool *mem_pool;
	struct zcomp *comps[ZCOMP_MAX_PRIOS];
	struct zcomp_conf comp_conf[ZCOMP_MAX_PRIOS];
	struct gendisk *disk;
	struct mutex pp_lock;	/* one writeback or recompression */
	struct rw_semaphore init_lock;
	u64 disksize;
	unsigned long limit_pages;
	size_t huge_class_size;
	struct zram_stats stats;
	bool claim;
#ifdef CONFIG_ZRAM_MEMORY_TRACKING
	struct dentry *debugfs_dir;
#endif
	struct zram_bdev backing;
	struct zram_wb wb;
};

static inline bool zram_init_done(struct zram *zram)
{
	lockdep_assert_held(&zram->init_lock);
	return zram->disksize != 0;
}

static inline struct zram *dev_to_zram(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

int zram_init_device(struct zram *zram, u32 nr_slots);
void zram_reset_device(struct zram *zram);
bool zram_claim(struct zram *zram);
void zram_unclaim(struct zram *zram);

#endif /* _ZRAM_H_ */
