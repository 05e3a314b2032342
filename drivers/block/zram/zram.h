/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram: compressed RAM block device. The device, its slots and their
 * states, shared by every file of the driver.
 *
 * Files and their owners' responsibilities:
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
 * Locking, outermost first; a lock is only taken with the ones above it
 * held or none:
 *
 *   zram_index_mutex (zram_drv.c): the device ids; held across add and
 *	remove.
 *   disk->open_mutex: struct zram.claim; brief, never held while waiting
 *	for anything below.
 *   zram.pp_lock (mutex): post-processing, one writeback or
 *	recompression at a time, for its whole run; a second one waits
 *	(killable). They do not hold init_lock while they run. Reset takes
 *	it before init_lock, so the device stays initialized while it is
 *	held.
 *   init_lock (rw_semaphore): write side changes the configuration,
 *	initializes and resets; read side keeps the device initialized for
 *	sysfs stores and shows. Never taken on the I/O path (reset claims
 *	and syncs the device instead).
 *   zram_wb_ctl.lock (irq-safe spinlock, zram_wb_internal.h): a writeback's
 *	request lists; taken by bio completions.
 *   the slot lock (spinlock, one per slot): every field of one slot;
 *	never two at once, never in interrupt context, nothing sleeps under
 *	it. REQ_NOWAIT I/O only tries it.
 *   zcomp_strm.lock (local_lock, zcomp.c): this CPU's compression stream;
 *	may be taken under a slot lock, never the other way round. The
 *	softirq streams of compressed_writeback devices have a lock class
 *	of their own, taken only in softirq, under no other lock (packed
 *	reads, zram_bdev.c).
 *   zram_wb.limit_lock (spinlock): the writeback_limit budget.
 *
 * Not locks but ordering rules: backing.read_srcu pins a written-back
 * block from the slot lock of its reader until its read completed
 * (zram_bdev.c); a freed block is reused only after a grace period.
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
 * The low ZRAM_FLAG_SHIFT bits of zram_table_entry.flags hold the size in
 * bytes of the slot's zsmalloc object (at most PAGE_SIZE, so PAGE_SHIFT + 1
 * bits); the bits from ZRAM_FLAG_SHIFT up are enum zram_pageflags.
 */
#define ZRAM_FLAG_SHIFT		(PAGE_SHIFT + 1)
#define ZRAM_OBJ_SIZE_MASK	((1UL << ZRAM_FLAG_SHIFT) - 1)
/* Compressor priorities fit the two ZRAM_COMP_PRIO_* bits. */
#define ZRAM_COMP_PRIO_MASK	0x3UL

/*
 * Slot state bits (zram_table_entry.flags). All are read and written only
 * under the slot lock, and written only by zram_slot.c. A stored slot is in
 * exactly one of three storage states: same-filled (ZRAM_SAME), on the
 * backing device (ZRAM_WB), or a zsmalloc object (neither; handle != 0).
 * zram_slot_free() clears them all.
 */
enum zram_pageflags {
	/* Core: page is one repeated unsigned long; handle is that value. */
	ZRAM_SAME = ZRAM_FLAG_SHIFT,
	/*
	 * Writeback: data is on the backing device; handle is its (first)
	 * block. Without ZRAM_PACKED the data is the whole page, alone in
	 * that block.
	 */
	ZRAM_WB,
	/*
	 * Writeback, only with ZRAM_WB: the data is the slot's compressed
	 * object, packed with others into backing device blocks (see "Packed
	 * slots" below). Set by zram_slot_install_wb_packed(), cleared with
	 * ZRAM_WB by zram_slot_free().
	 */
	ZRAM_PACKED,
	/*
	 * Writeback: selected by the running writeback, not yet committed.
	 * Set and cleared by zram_slot_wb_*() for the writer that holds
	 * zram.pp_lock; zram_slot_free() clears it too, so a slot freed or
	 * overwritten while selected drops out.
	 */
	ZRAM_WB_SELECTED,
	/* Core: stored uncompressed in a PAGE_SIZE zsmalloc object. */
	ZRAM_HUGE,
	/* Core (idle store) sets, any access clears: not used since marked. */
	ZRAM_IDLE,
	/*
	 * Recompression (zram_slot_recompress()): the highest configured
	 * secondary algorithm did not make the object smaller; not tried
	 * again.
	 * Writeback's "incompressible" mode selects these slots.
	 */
	ZRAM_INCOMPRESSIBLE,
	/*
	 * Two bits: priority of the compressor that made the object, 0 for
	 * the primary one. Set by recompression, kept by packed writeback
	 * (the packed object is that compressor's), cleared with the slot.
	 */
	ZRAM_COMP_PRIO_BIT0,
	ZRAM_COMP_PRIO_BIT1,
	__NR_ZRAM_PAGEFLAGS,
};

/*
 * Packed slots (compressed_writeback). A writeback request reserves one
 * or more extents of backing device blocks and numbers their blocks in
 * order: its block sequence. It writes the compressed objects of the
 * slots it carries back to back from the first byte of that sequence, so
 * an object lies in one block or runs from the end of one block into the
 * next block of the sequence: a read touches at most two blocks. The next
 * block is the adjacent one within an extent; across extents it may lie
 * further on (never before), and the object only runs into it when the
 * gap fits the field below; otherwise the object starts in a fresh block.
 * Slots stored as whole pages (ZRAM_HUGE) get whole blocks of their own
 * after the packed ones. Unused bytes are written as zeroes.
 *
 * A packed slot (ZRAM_WB | ZRAM_PACKED) keeps:
 *   handle                      the object's first block (never 0)
 *   flags & ZRAM_OBJ_SIZE_MASK  its length in bytes (below PAGE_SIZE)
 *   flags bits [ZRAM_LOC_OFF_SHIFT, ZRAM_LOC_GAP_SHIFT)
 *                               its byte offset in the first block
 *   flags bits [ZRAM_LOC_GAP_SHIFT, BITS_PER_LONG)
 *                               when offset + length > PAGE_SIZE: the
 *                               blocks between the first block and the
 *                               second one (0: adjacent)
 *   ZRAM_COMP_PRIO_BIT0/1       the priority of the compressor that made
 *                               the object, as in RAM
 * so the second block is handle + 1 + gap. With 4 KiB pages the offset
 * field ends at bit 34 and the gap has 30 bits; on 32-bit machines the
 * offset does not fit and compressed_writeback is refused
 * (zram_loc_supported()). Each block holding packed objects counts its
 * live objects (zram_bdev_block.c) and is freed with the last one.
 */
#define ZRAM_LOC_OFF_SHIFT	__NR_ZRAM_PAGEFLAGS
#define ZRAM_LOC_GAP_SHIFT	(ZRAM_LOC_OFF_SHIFT + PAGE_SHIFT)

/* The packed location fields fit zram_table_entry.flags. */
static inline bool zram_loc_supported(void)
{
	return ZRAM_LOC_GAP_SHIFT <= BITS_PER_LONG;
}

/*
 * Largest gap between the blocks of an object that the flags can hold (0
 * when the field has no bits). Two shifts, each below BITS_PER_LONG.
 */
static inline unsigned long zram_loc_gap_max(void)
{
	return (ULONG_MAX >> ZRAM_LOC_OFF_SHIFT) >> PAGE_SHIFT;
}

/* The gap field of a packed slot's flags. */
static inline unsigned long zram_loc_gap(unsigned long flags)
{
	return (flags >> ZRAM_LOC_OFF_SHIFT) >> PAGE_SHIFT;
}

/* The offset field of a packed slot's flags. */
static inline unsigned int zram_loc_offset(unsigned long flags)
{
	return (flags >> ZRAM_LOC_OFF_SHIFT) & (PAGE_SIZE - 1);
}

/* Flags bits holding @offset and @gap, see "Packed slots". */
static inline unsigned long zram_loc_flags(unsigned int offset,
					   unsigned long gap)
{
	return ((unsigned long)offset | (gap << PAGE_SHIFT)) <<
	       ZRAM_LOC_OFF_SHIFT;
}

/**
 * struct zram_table_entry - one slot, i.e. one PAGE_SIZE block of the disk
 * @handle: zsmalloc handle; or the fill value for ZRAM_SAME; or the backing
 *	device block number for ZRAM_WB (the first one of a packed object);
 *	0 when empty
 * @flags: object size (low ZRAM_FLAG_SHIFT bits), enum zram_pageflags, and
 *	for a packed slot its location fields (see "Packed slots")
 * @lock: the slot lock; protects every field of this entry. A spinlock: it
 *	is held only for short, non-sleeping work (free, copy, decompress).
 *	It is never taken from hard or soft interrupt context, and no other
 *	slot lock is taken while it is held.
 * @ac_time: last access time (boottime); 0 when empty
 */
struct zram_table_entry {
	unsigned long handle;
	unsigned long flags;
	spinlock_t lock;	/* the slot lock, see above */
#ifdef CONFIG_ZRAM_TRACK_ENTRY_ACTIME
	ktime_t ac_time;
#endif
};

/*
 * Device statistics, in pages (4 KiB units on x86) unless noted. Updated
 * with atomics, mostly under the slot lock of the slot concerned; readers
 * take no lock and may see a mix of old and new values.
 */
struct zram_stats {
	atomic64_t compr_data_size;	/* bytes held in zsmalloc objects */
	atomic64_t failed_reads;	/* read bios ended with an error */
	atomic64_t failed_writes;	/* write bios ended with an error */
	atomic64_t notify_free;		/* swap free notifications, discards */
	atomic64_t same_pages;		/* slots stored as ZRAM_SAME */
	atomic64_t huge_pages;		/* slots stored as ZRAM_HUGE */
	atomic64_t huge_pages_since;	/* ZRAM_HUGE stores since init */
	atomic64_t pages_stored;	/* slots holding data (any state) */
	atomic_long_t max_used_pages;	/* peak zsmalloc pool size */
	atomic64_t writestall;		/* writes that took the sleeping path */
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
	atomic64_t pk_dead_bytes;	/* bytes of freed objects in those */
	atomic64_t pk_split_reads;	/* packed reads of two blocks apart */
#endif
};

/**
 * struct zram - one zram device
 * @table: slot array, disksize >> PAGE_SHIFT entries; NULL when not
 *	initialized. Set and freed with init_lock held for write; each entry
 *	is then guarded by its own slot lock.
 * @mem_pool: zsmalloc pool for compressed objects; lifetime as @table
 * @comps: one compressor per configured priority of @comp_conf (entry
 *	ZCOMP_PRIO_PRIMARY compresses every write); all NULL when not
 *	initialized; lifetime as @table
 * @comp_conf: algorithm and parameters of each priority; written with
 *	init_lock held for write, only while not initialized
 * @disk: the gendisk; fixed from zram_add() to zram_remove()
 * @pp_lock: post-processing mutex, see "Locking" above; also guards the
 *	writeback allocator's cursor (zram_wb.cursor)
 * @init_lock: write side: changing the configuration, initialization and
 *	reset; read side: operations that need an initialized device and
 *	stable configuration (sysfs stats, idle, compact). The
 *	I/O path does not take it: reset waits for I/O by claiming the
 *	device and syncing it first.
 * @disksize: device size in bytes; 0 means not initialized. Set by
 *	disksize_store(), cleared by reset, with init_lock held for write;
 *	read under init_lock
 * @limit_pages: cap on the zsmalloc pool size in pages; 0 means none.
 *	WRITE_ONCE() with init_lock held for write; the I/O path reads it
 *	with READ_ONCE() and no lock
 * @huge_class_size: compressed size in bytes from which a page is stored
 *	uncompressed (ZRAM_HUGE); set at initialization, lifetime as @table
 * @stats: statistics, see struct zram_stats
 * @claim: set while reset or removal owns the device; opens fail with
 *	-EBUSY. Set by reset_store() or zram_remove() only when the disk has
 *	no openers, cleared by reset_store() when done; read and written
 *	under disk->open_mutex
 * @debugfs_dir: per-device debugfs directory (CONFIG_ZRAM_MEMORY_TRACKING)
 * @backing: the backing device, owned by zram_bdev.c and zram_bdev_block.c
 * @wb: writeback state, owned by zram_wb.c
 */
struct zram {
	struct zram_table_entry *table;
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

/* True once disksize is set. Caller holds init_lock (either side). */
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
