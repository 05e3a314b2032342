// SPDX-License-Identifier: GPL-2.0-only
/* zram slot store: the only code that changes a slot's state. */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/sched.h>
#include <linux/zsmalloc.h>

#include "zram_obj.h"
#include "zram_recomp.h"
#include "zram_slot.h"

static void zram_slot_free_wb(struct zram *zram, u32 index);

/* Setters, private to the slot store; slot lock held. */
static void zram_set_flag(struct zram *zram, u32 index,
			  enum zram_pageflags flag)
{
	zram_slot_assert_held(zram, index);
	zram->table[index].flags |= BIT(flag);
}

static void zram_clear_flag(struct zram *zram, u32 index,
			    enum zram_pageflags flag)
{
	zram_slot_assert_held(zram, index);
	zram->table[index].flags &= ~BIT(flag);
}

static void zram_set_handle(struct zram *zram, u32 index,
			    unsigned long handle)
{
	zram_slot_assert_held(zram, index);
	zram->table[index].handle = handle;
}

static void zram_set_obj_size(struct zram *zram, u32 index,
			      size_t size)
{
	unsigned long flags = zram->table[index].flags;

	zram_slot_assert_held(zram, index);
	zram->table[index].flags = (flags & ~ZRAM_OBJ_SIZE_MASK) | size;
}

/* Only sets bits: for a freed slot. Inline: unused in some configs. */
static inline void zram_slot_set_prio(struct zram *zram, u32 index, u32 prio)
{
	if (prio & BIT(0))
		zram_set_flag(zram, index, ZRAM_COMP_PRIO_BIT0);
	if (prio & BIT(1))
		zram_set_flag(zram, index, ZRAM_COMP_PRIO_BIT1);
}

/* The lock bit and the access time share the flags word on 64-bit. */
static_assert(__NR_ZRAM_PAGEFLAGS <= ZRAM_ACTIME_SHIFT);

#if defined(CONFIG_ZRAM_TRACK_ENTRY_ACTIME) && BITS_PER_LONG == 64
static void zram_slot_set_actime(struct zram *zram, u32 index, u32 time)
{
	unsigned long flags = zram->table[index].flags;

	zram_slot_assert_held(zram, index);
	zram->table[index].flags = lower_32_bits(flags) |
				   (unsigned long)time << ZRAM_ACTIME_SHIFT;
}
#elif defined(CONFIG_ZRAM_TRACK_ENTRY_ACTIME)
static void zram_slot_set_actime(struct zram *zram, u32 index, u32 time)
{
	zram_slot_assert_held(zram, index);
	zram->table[index].ac_time = time;
}
#else
static void zram_slot_set_actime(struct zram *zram, u32 index, u32 time)
{
}
#endif

/**
 * zram_slot_record_access() - clear ZRAM_IDLE and stamp the access time
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_record_access(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	zram_clear_flag(zram, index, ZRAM_IDLE);
	/* Every read and write comes here: no clock read when untracked. */
	if (IS_ENABLED(CONFIG_ZRAM_TRACK_ENTRY_ACTIME))
		zram_slot_set_actime(zram, index, ktime_get_boottime_seconds());
}

/* Gives back the storage and its stats; zram_slot_free() does the rest. */
static void zram_slot_free_stored(struct zram *zram, u32 index)
{
	unsigned long handle = zram_get_handle(zram, index);

	if (zram_test_flag(zram, index, ZRAM_WB)) {
		zram_slot_free_wb(zram, index);
		return;
	}
	if (zram_test_flag(zram, index, ZRAM_SAME)) {
		atomic64_dec(&zram->stats.same_pages);
		return;
	}
	zs_free(zram->mem_pool, handle);
	atomic64_sub(zram_get_obj_size(zram, index),
		     &zram->stats.compr_data_size);
}

/**
 * zram_slot_free() - free a slot's storage, clear its flags (selection too)
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_free(struct zram *zram, u32 index)
{
	bool allocated;

	zram_slot_assert_held(zram, index);
	allocated = zram_slot_allocated(zram, index);
	if (zram_test_flag(zram, index, ZRAM_HUGE))
		atomic64_dec(&zram->stats.huge_pages);
	if (allocated) {
		zram_slot_free_stored(zram, index);
		atomic64_dec(&zram->stats.pages_stored);
	}
	zram_slot_set_actime(zram, index, 0);
	zram->table[index].flags &= BIT(ZRAM_SLOT_LOCK);
	zram_set_handle(zram, index, 0);
}

/**
 * zram_slot_install() - replace a slot's contents by a prepared object
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @obj: from zram_obj_prepare(); owned by the slot afterwards
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_install(struct zram *zram, u32 index,
		       const struct zram_obj *obj)
{
	zram_slot_assert_held(zram, index);
	zram_slot_free(zram, index);
	zram_set_handle(zram, index, obj->handle);
	if (obj->same) {
		zram_set_flag(zram, index, ZRAM_SAME);
		atomic64_inc(&zram->stats.same_pages);
	} else {
		zram_set_obj_size(zram, index, obj->size);
		atomic64_add(obj->size, &zram->stats.compr_data_size);
	}
	if (!obj->same && obj->size == PAGE_SIZE) {
		zram_set_flag(zram, index, ZRAM_HUGE);
		atomic64_inc(&zram->stats.huge_pages);
		atomic64_inc(&zram->stats.huge_pages_since);
	}
	atomic64_inc(&zram->stats.pages_stored);
	zram_slot_record_access(zram, index);
}

/**
 * zram_slot_record_read() - record a successful read of a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @nowait: the bio has REQ_NOWAIT; a busy slot is not updated
 *
 * Called after the read (or its submission to the backing device), so a
 * read refused with -EAGAIN leaves the slot untouched.
 *
 * Context: task context; spins unless @nowait; never sleeps.
 */
void zram_slot_record_read(struct zram *zram, u32 index, bool nowait)
{
	/* Races tolerated: a skipped or late stamp only skews idle marking. */
	if (!zram_slot_lock_io(zram, index, nowait))
		return;
	zram_slot_record_access(zram, index);
	zram_slot_unlock(zram, index);
}

/**
 * zram_slot_free_all() - empty every slot of an initialized device
 * @zram: device; no I/O in flight
 *
 * Context: process context, init_lock held for write; may sleep.
 */
void zram_slot_free_all(struct zram *zram)
{
	unsigned long nr_slots = zram->disksize >> PAGE_SHIFT;
	unsigned long index;

	lockdep_assert_held_write(&zram->init_lock);
	for (index = 0; index < nr_slots; index++) {
		zram_slot_lock(zram, index);
		zram_slot_free(zram, index);
		zram_slot_unlock(zram, index);
		cond_resched();
	}
}

/**
 * zram_slot_mark_idle() - set or clear ZRAM_IDLE by access time
 * @zram: device, initialized
 * @cutoff: boottime seconds; slots last accessed before become idle, the
 *	others lose the mark; 0 marks every slot idle
 *
 * Context: process context, init_lock held for read; may sleep.
 */
void zram_slot_mark_idle(struct zram *zram, u32 cutoff)
{
	unsigned long nr_slots = zram->disksize >> PAGE_SHIFT;
	unsigned long index;

	lockdep_assert_held_read(&zram->init_lock);
	for (index = 0; index < nr_slots; index++) {
		zram_slot_lock(zram, index);
		if (zram_slot_allocated(zram, index) &&
		    !zram_test_flag(zram, index, ZRAM_WB) &&
		    !zram_test_flag(zram, index, ZRAM_WB_SELECTED) &&
		    !zram_test_flag(zram, index, ZRAM_SAME)) {
			if (!cutoff || zram_slot_get_actime(zram, index) < cutoff)
				zram_set_flag(zram, index, ZRAM_IDLE);
			else
				zram_clear_flag(zram, index, ZRAM_IDLE);
		}
		zram_slot_unlock(zram, index);
		cond_resched();
	}
}

#ifdef CONFIG_ZRAM_MULTI_COMP
/* Slot lock held: an object in RAM, matching @mode, not yet given up on. */
static bool zram_slot_recomp_eligible(struct zram *zram, u32 index,
				      unsigned int mode)
{
	if (!zram_slot_allocated(zram, index) ||
	    zram_test_flag(zram, index, ZRAM_WB) ||
	    zram_test_flag(zram, index, ZRAM_WB_SELECTED) ||
	    zram_test_flag(zram, index, ZRAM_SAME) ||
	    zram_test_flag(zram, index, ZRAM_INCOMPRESSIBLE))
		return false;
	if ((mode & ZRAM_RECOMP_IDLE) && !zram_test_flag(zram, index, ZRAM_IDLE))
		return false;
	if ((mode & ZRAM_RECOMP_HUGE) && !zram_test_flag(zram, index, ZRAM_HUGE))
		return false;
	return true;
}

/* Starts afresh, no flags nor access time: a later "idle AGE" finds it idle. */
static void zram_slot_install_recompressed(struct zram *zram, u32 index,
					   const struct zram_obj *obj)
{
	zram_slot_free(zram, index);
	zram_set_handle(zram, index, obj->handle);
	zram_set_obj_size(zram, index, obj->size);
	zram_slot_set_prio(zram, index, obj->prio);
	atomic64_add(obj->size, &zram->stats.compr_data_size);
	atomic64_inc(&zram->stats.pages_stored);
}

/**
 * zram_slot_recompress() - recompress one slot for a recompress request
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @spec: the request
 * @page: scratch page, PAGE_SIZE bytes
 *
 * A slot the algorithm was tried on loses ZRAM_IDLE, so idle
 * post-processing skips it next time, and becomes ZRAM_INCOMPRESSIBLE when
 * no higher priority is configured.
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: 1 when the algorithm was tried (counts against max_pages), 0 when
 * the slot did not qualify, or -EIO or -ENOMEM (the slot is unchanged).
 */
int zram_slot_recompress(struct zram *zram, u32 index,
			 const struct zram_recomp_spec *spec,
			 struct page *page)
{
	struct zram_obj obj;
	int ret = 0;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	if (zram_slot_recomp_eligible(zram, index, spec->mode))
		ret = zram_obj_recompress(zram, index, page, spec, &obj);
	switch (ret) {
	case ZRAM_RECOMP_SKIPPED:
	case ZRAM_RECOMP_NOT_TRIED:
		ret = 0;
		break;
	case ZRAM_RECOMP_INCOMPRESSIBLE:
		zram_set_flag(zram, index, ZRAM_INCOMPRESSIBLE);
		fallthrough;
	case ZRAM_RECOMP_NO_GAIN:
		zram_clear_flag(zram, index, ZRAM_IDLE);
		ret = 1;
		break;
	case ZRAM_RECOMP_STORED:
		zram_slot_install_recompressed(zram, index, &obj);
		ret = 1;
		break;
	}
	zram_slot_unlock(zram, index);
	return ret;
}
#endif /* CONFIG_ZRAM_MULTI_COMP */

#ifdef CONFIG_ZRAM_WRITEBACK
/* Slot lock held: stored in RAM, not selected, and matching @mode. */
static bool zram_slot_wb_eligible(struct zram *zram, u32 index,
				  unsigned int mode)
{
	if (!zram_slot_allocated(zram, index) ||
	    zram_test_flag(zram, index, ZRAM_WB) ||
	    zram_test_flag(zram, index, ZRAM_SAME) ||
	    zram_test_flag(zram, index, ZRAM_WB_SELECTED))
		return false;
	if ((mode & ZRAM_WB_IDLE) && !zram_test_flag(zram, index, ZRAM_IDLE))
		return false;
	if ((mode & ZRAM_WB_HUGE) && !zram_test_flag(zram, index, ZRAM_HUGE))
		return false;
	if ((mode & ZRAM_WB_INCOMPRESSIBLE) &&
	    !zram_test_flag(zram, index, ZRAM_INCOMPRESSIBLE))
		return false;
	return true;
}

/* Slot lock held: still selected; in idle mode still idle (else hot). */
static bool zram_slot_wb_selected(struct zram *zram, u32 index,
				  unsigned int mode)
{
	if (!zram_test_flag(zram, index, ZRAM_WB_SELECTED))
		return false;
	return !(mode & ZRAM_WB_IDLE) || zram_test_flag(zram, index, ZRAM_IDLE);
}

/**
 * zram_slot_wb_select() - select a slot stored in RAM for the writeback
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @mode: ZRAM_WB_* bits the slot must match
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when the slot was selected.
 */
bool zram_slot_wb_select(struct zram *zram, u32 index, unsigned int mode)
{
	bool selected;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	selected = zram_slot_wb_eligible(zram, index, mode);
	if (selected)
		zram_set_flag(zram, index, ZRAM_WB_SELECTED);
	zram_slot_unlock(zram, index);
	return selected;
}

/**
 * zram_slot_wb_unselect() - drop a slot's selection; it stays in RAM
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 */
void zram_slot_wb_unselect(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	zram_slot_unlock(zram, index);
}

/**
 * zram_slot_wb_read() - copy a selected slot's data for the writeback
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @mode: ZRAM_WB_* mode the slot was selected with
 * @page: destination, PAGE_SIZE bytes
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when @page holds the data; false also if it did not decompress.
 */
bool zram_slot_wb_read(struct zram *zram, u32 index, unsigned int mode,
		       struct page *page)
{
	bool copied;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	copied = zram_slot_wb_selected(zram, index, mode) &&
		 !zram_obj_read(zram, page, index);
	if (!copied)
		zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	zram_slot_unlock(zram, index);
	return copied;
}

/**
 * zram_slot_install_wb() - commit a written slot to its backing block
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @mode: ZRAM_WB_* mode the slot was selected with
 * @block: backing device block holding the slot's data
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when the slot now owns @block; else the caller releases it.
 */
bool zram_slot_install_wb(struct zram *zram, u32 index, unsigned int mode,
			  unsigned long block)
{
	bool installed = false;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	if (zram_slot_wb_selected(zram, index, mode)) {
		zram_slot_free(zram, index);
		zram_set_flag(zram, index, ZRAM_WB);
		zram_set_handle(zram, index, block);
		atomic64_inc(&zram->stats.pages_stored);
		atomic64_inc(&zram->stats.bd_count);
		installed = true;
	} else {
		zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	}
	zram_slot_unlock(zram, index);
	return installed;
}

/**
 * zram_slot_wb_peek() - size a selected slot would write back
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @mode: ZRAM_WB_* mode the slot was selected with
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: 0 when dropped out; PAGE_SIZE for ZRAM_HUGE; else the object's
 * size in bytes, which holds while selected (any change drops out).
 */
unsigned int zram_slot_wb_peek(struct zram *zram, u32 index,
			       unsigned int mode)
{
	unsigned int size = 0;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	if (!zram_slot_wb_selected(zram, index, mode))
		zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	else if (zram_test_flag(zram, index, ZRAM_HUGE))
		size = PAGE_SIZE;
	else
		size = zram_get_obj_size(zram, index);
	zram_slot_unlock(zram, index);
	return size;
}

/**
 * zram_slot_wb_block() - the block of a slot written back as a whole page
 * @zram: device
 * @index: slot index (PAGE_SIZE units); past the last slot gives false
 * @block: set to the slot's backing device block
 *
 * A hint to place the slot's neighbours by: the slot may change as soon as
 * this returns.
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when the slot is on the backing device and not packed.
 */
bool zram_slot_wb_block(struct zram *zram, u32 index, unsigned long *block)
{
	bool whole;

	lockdep_assert_held(&zram->pp_lock);
	if (index >= zram->disksize >> PAGE_SHIFT)
		return false;
	zram_slot_lock(zram, index);
	whole = zram_test_flag(zram, index, ZRAM_WB) &&
		!zram_test_flag(zram, index, ZRAM_PACKED);
	if (whole)
		*block = zram_get_handle(zram, index);
	zram_slot_unlock(zram, index);
	return whole;
}

/**
 * zram_slot_wb_read_obj() - copy a selected slot's compressed object
 * @zram: device
 * @index: slot index (PAGE_SIZE units); not ZRAM_HUGE
 * @mode: ZRAM_WB_* mode the slot was selected with
 * @size: the object's size in bytes, from zram_slot_wb_peek()
 * @dst: destination of the object's first @split bytes
 * @split: bytes to copy to @dst, at most @size
 * @dst2: destination of the rest
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when copied.
 */
bool zram_slot_wb_read_obj(struct zram *zram, u32 index, unsigned int mode,
			   unsigned int size, void *dst, unsigned int split,
			   void *dst2)
{
	bool copied;

	lockdep_assert_held(&zram->pp_lock);
	zram_slot_lock(zram, index);
	copied = zram_slot_wb_selected(zram, index, mode) &&
		 !WARN_ON_ONCE(zram_get_obj_size(zram, index) != size ||
			       zram_test_flag(zram, index, ZRAM_HUGE));
	if (copied)
		zram_obj_copy(zram, index, dst, split, dst2);
	else
		zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	zram_slot_unlock(zram, index);
	return copied;
}

/**
 * zram_slot_install_wb_packed() - commit a written slot to its packed object
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @mode: ZRAM_WB_* mode the slot was selected with
 * @loc: where its object was written; @loc->len below PAGE_SIZE, @loc->next
 *	at most zram_loc_gap_max() + 1 blocks after @loc->block
 *
 * The slot keeps its priority: the object written is still its own, as any
 * change drops out and recompression waits for zram.pp_lock.
 *
 * Context: task context, zram.pp_lock held; takes the slot lock.
 * Return: true when the slot now owns one of the object counts of
 * zram_bdev_pack_hold(); false (also when @loc does not fit) leaves it to
 * the caller's zram_bdev_put_loc().
 */
bool zram_slot_install_wb_packed(struct zram *zram, u32 index,
				 unsigned int mode,
				 const struct zram_bdev_loc *loc)
{
	unsigned long gap = loc->next ? loc->next - loc->block - 1 : 0;
	bool installed = false;
	bool bad;

	lockdep_assert_held(&zram->pp_lock);
	bad = WARN_ON_ONCE(loc->len >= PAGE_SIZE || gap > zram_loc_gap_max() ||
			   loc->block > zram_loc_block_max());
	zram_slot_lock(zram, index);
	if (!bad && zram_slot_wb_selected(zram, index, mode)) {
		u32 prio = zram_slot_get_prio(zram, index);

		zram_slot_free(zram, index);
		zram_set_flag(zram, index, ZRAM_WB);
		zram_set_flag(zram, index, ZRAM_PACKED);
		zram_slot_set_prio(zram, index, prio);
		zram_set_handle(zram, index,
				zram_loc_handle(loc->block, loc->offset, gap));
		zram_set_obj_size(zram, index, loc->len);
		atomic64_inc(&zram->stats.pages_stored);
		atomic64_inc(&zram->stats.pk_objects);
		atomic64_add(loc->len, &zram->stats.pk_bytes);
		installed = true;
	} else {
		zram_clear_flag(zram, index, ZRAM_WB_SELECTED);
	}
	zram_slot_unlock(zram, index);
	return installed;
}

/* Releases a ZRAM_WB slot's block or packed object; slot lock held. */
static void zram_slot_free_wb(struct zram *zram, u32 index)
{
	struct zram_bdev_loc loc;

	zram_slot_wb_loc(zram, index, &loc);
	if (zram_test_flag(zram, index, ZRAM_PACKED)) {
		atomic64_dec(&zram->stats.pk_objects);
		atomic64_sub(loc.len, &zram->stats.pk_bytes);
	}
	zram_bdev_put_loc(zram, &loc);
}
#else /* CONFIG_ZRAM_WRITEBACK */
static void zram_slot_free_wb(struct zram *zram, u32 index)
{
}
#endif /* CONFIG_ZRAM_WRITEBACK */
