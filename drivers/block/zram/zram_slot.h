/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram slot store (zram_slot.c): the slot lock, read accessors of a slot,
 * and the only functions that change a slot's state.
 */
#ifndef _ZRAM_SLOT_H_
#define _ZRAM_SLOT_H_

#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "zram.h"

struct zram_obj;
struct zram_recomp_spec;

static inline bool zram_test_flag(struct zram *zram, u32 index,
				  enum zram_pageflags flag)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].flags & BIT(flag);
}

static inline unsigned long zram_get_handle(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].handle;
}

/* Size in bytes of the slot's zsmalloc object. */
static inline size_t zram_get_obj_size(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].flags & ZRAM_OBJ_SIZE_MASK;
}

/* Priority of the compressor that made the slot's object (0: primary). */
static inline u32 zram_slot_get_prio(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return (zram->table[index].flags >> ZRAM_COMP_PRIO_BIT0) &
	       ZRAM_COMP_PRIO_MASK;
}

/* Where a written-back slot's data is; slot lock held. */
static inline void zram_slot_wb_loc(struct zram *zram, u32 index,
				    struct zram_bdev_loc *loc)
{
	unsigned long flags = zram->table[index].flags;

	lockdep_assert_held(&zram->table[index].lock);
	loc->block = zram->table[index].handle;
	loc->next = 0;
	loc->offset = 0;
	loc->len = PAGE_SIZE;
	loc->prio = 0;
	if (!(flags & BIT(ZRAM_PACKED)))
		return;
	loc->len = flags & ZRAM_OBJ_SIZE_MASK;
	loc->prio = zram_slot_get_prio(zram, index);
	loc->offset = zram_loc_offset(flags);
	if (loc->offset + loc->len > PAGE_SIZE)
		loc->next = loc->block + 1 + zram_loc_gap(flags);
}

/* True when the slot holds data in any storage state. */
static inline bool zram_slot_allocated(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].handle ||
	       zram_test_flag(zram, index, ZRAM_SAME) ||
	       zram_test_flag(zram, index, ZRAM_WB);
}

/*
 * The slot lock: task context only; spins, never sleeps. REQ_NOWAIT I/O
 * only tries it: zram_slot_trylock(), or zram_slot_lock_io() with @nowait,
 * return false when the slot is busy.
 */
static inline void zram_slot_lock(struct zram *zram, u32 index)
	__acquires(&zram->table[index].lock)
{
	spin_lock(&zram->table[index].lock);
}

static inline void zram_slot_unlock(struct zram *zram, u32 index)
	__releases(&zram->table[index].lock)
{
	spin_unlock(&zram->table[index].lock);
}

static inline bool zram_slot_trylock(struct zram *zram, u32 index)
{
	return spin_trylock(&zram->table[index].lock);
}

static inline bool zram_slot_lock_io(struct zram *zram, u32 index, bool nowait)
{
	if (nowait)
		return zram_slot_trylock(zram, index);
	zram_slot_lock(zram, index);
	return true;
}

/* Access time of a slot (CONFIG_ZRAM_TRACK_ENTRY_ACTIME); slot lock held. */
#ifdef CONFIG_ZRAM_TRACK_ENTRY_ACTIME
static inline ktime_t zram_slot_get_actime(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].ac_time;
}
#else
static inline ktime_t zram_slot_get_actime(struct zram *zram, u32 index)
{
	return 0;
}
#endif

void zram_slot_record_access(struct zram *zram, u32 index);
void zram_slot_record_read(struct zram *zram, u32 index, bool nowait);
void zram_slot_free(struct zram *zram, u32 index);
void zram_slot_install(struct zram *zram, u32 index,
		       const struct zram_obj *obj);
void zram_slot_free_all(struct zram *zram);
void zram_slot_mark_idle(struct zram *zram, ktime_t cutoff);

/* Recompression's transition (zram_recomp.c holds zram.pp_lock). */
int zram_slot_recompress(struct zram *zram, u32 index,
			 const struct zram_recomp_spec *spec,
			 struct page *page);

/*
 * Writeback's transitions, for the zram.pp_lock holder. A slot changed since
 * its selection (freed, written, or read in idle mode) drops out: its
 * selection is cleared and the call returns false or 0.
 */
bool zram_slot_wb_select(struct zram *zram, u32 index, unsigned int mode);
void zram_slot_wb_unselect(struct zram *zram, u32 index);
bool zram_slot_wb_read(struct zram *zram, u32 index, unsigned int mode,
		       struct page *page);
bool zram_slot_install_wb(struct zram *zram, u32 index, unsigned int mode,
			  unsigned long block);
unsigned int zram_slot_wb_peek(struct zram *zram, u32 index,
			       unsigned int mode);
bool zram_slot_wb_read_obj(struct zram *zram, u32 index, unsigned int mode,
			   unsigned int size, void *dst, unsigned int split,
			   void *dst2);
bool zram_slot_install_wb_packed(struct zram *zram, u32 index,
				 unsigned int mode,
				 const struct zram_bdev_loc *loc);

#endif /* _ZRAM_SLOT_H_ */
