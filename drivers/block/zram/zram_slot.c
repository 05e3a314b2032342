// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram slot store: locking one slot, recording accesses, idle marking,
 * freeing a slot's storage and installing new contents. The only code that
 * changes a slot's state.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/sched.h>
#include <linux/zsmalloc.h>

#include "zram_obj.h"
#include "zram_slot.h"

/**
 * zram_slot_lock() - lock one slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: task context; spins, never sleeps. Not for REQ_NOWAIT I/O, which
 * uses zram_slot_trylock().
 */
void zram_slot_lock(struct zram *zram, u32 index)
	__acquires(&zram->table[index].lock)
{
	spin_lock(&zram->table[index].lock);
}

/**
 * zram_slot_unlock() - unlock a slot locked by either function above
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: slot lock held.
 */
void zram_slot_unlock(struct zram *zram, u32 index)
	__releases(&zram->table[index].lock)
{
	spin_unlock(&zram->table[index].lock);
}

/**
 * zram_slot_record_access() - record an access to a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Clears ZRAM_IDLE and stamps the access time.
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_record_access(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	zram_clear_flag(zram, index, ZRAM_IDLE);
	zram_slot_set_actime(zram, index, zram_now());
}

/**
 * zram_slot_free_stored() - release the storage of an allocated slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units); zram_slot_allocated() is true
 *
 * Gives back the backing device block, the same-filled count, or the
 * zsmalloc object and its compr_data_size bytes. Flags, handle and
 * pages_stored are left to zram_slot_free().
 *
 * Context: slot lock held (task context); never sleeps.
 */
static void zram_slot_free_stored(struct zram *zram, u32 index)
{
	unsigned long handle = zram_get_handle(zram, index);

	if (zram_test_flag(zram, index, ZRAM_WB)) {
		zram_bdev_free_block(zram, handle);
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
 * zram_slot_free() - release whatever a slot holds
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Frees the zsmalloc object or the backing device block, fixes the
 * statistics, and leaves the slot empty: handle 0, no flags (this drops a
 * pending writeback selection, ZRAM_WB_SELECTED), access time 0. An empty slot
 * is left alone.
 *
 * Context: slot lock held (task context); never sleeps.
 */
void zram_slot_free(struct zram *zram, u32 index)
{
	bool allocated;

	lockdep_assert_held(&zram->table[index].lock);
	allocated = zram_slot_allocated(zram, index);
	/* A huge slot counts even if writeback ever kept the flag. */
	if (zram_test_flag(zram, index, ZRAM_HUGE))
		atomic64_dec(&zram->stats.huge_pages);
	if (allocated) {
		zram_slot_free_stored(zram, index);
		atomic64_dec(&zram->stats.pages_stored);
	}
	zram->table[index].flags = 0;
	zram_set_handle(zram, index, 0);
	zram_slot_set_actime(zram, index, 0);
}

/**
 * zram_slot_install() - commit prepared contents to a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @obj: contents from zram_obj_prepare(); owned by the slot afterwards
 *
 * Frees the old contents (dropping a writeback selection), stores @obj,
 * updates the statistics and records the access.
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_install(struct zram *zram, u32 index,
		       const struct zram_obj *obj)
{
	lockdep_assert_held(&zram->table[index].lock);
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
 * @nowait: the bio has REQ_NOWAIT
 *
 * Called once the read succeeded (for a written-back slot: once the
 * backing device read was issued), so that a read refused with -EAGAIN
 * leaves the slot untouched.
 *
 * Context: task context; spins unless @nowait; never sleeps.
 */
void zram_slot_record_read(struct zram *zram, u32 index, bool nowait)
{
	/*
	 * Race tolerated: a REQ_NOWAIT bio does not wait for a busy slot;
	 * the update is skipped and the slot only looks older to idle
	 * marking than it is.
	 */
	if (!zram_slot_lock_io(zram, index, nowait))
		return;
	zram_slot_record_access(zram, index);
	zram_slot_unlock(zram, index);
}

/**
 * zram_slot_free_all() - empty every slot of an initialized device
 * @zram: device; no I/O in flight
 *
 * Gives the zsmalloc objects and backing device blocks back.
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
 * @cutoff: boottime; slots not accessed since then become idle, the others
 *	lose the mark; 0 marks every slot idle
 *
 * Same-filled slots have nothing to write back, written-back slots are
 * already out, and slots selected by a running writeback (ZRAM_WB_SELECTED)
 * are left to it, so none of those is touched.
 *
 * Context: process context, init_lock held for read; may sleep.
 */
void zram_slot_mark_idle(struct zram *zram, ktime_t cutoff)
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
			ktime_t actime = zram_slot_get_actime(zram, index);

			if (!cutoff || ktime_after(cutoff, actime))
				zram_set_flag(zram, index, ZRAM_IDLE);
			else
				zram_clear_flag(zram, index, ZRAM_IDLE);
		}
		zram_slot_unlock(zram, index);
		cond_resched();
	}
}
