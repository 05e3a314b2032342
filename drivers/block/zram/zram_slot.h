/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram slot store (zram_slot.c): the slot lock, read accessors of a slot,
 * and the only functions that change a slot's state.
 */
#ifndef _ZRAM_SLOT_H_
#define _ZRAM_SLOT_H_

#include <linux/bit_spinlock.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "zram.h"

struct zram_obj;
struct zram_recomp_spec;

/*
 * The slot lock: task context only; spins, never sleeps. REQ_NOWAIT I/O
 * only tries it: zram_slot_trylock(), or zram_slot_lock_io() with @nowait,
 * return false when the slot is busy. It is bit ZRAM_SLOT_LOCK of the
 * slot's flags; every other bit of that word changes only under it, so
 * the unlock need not be atomic. Lockdep sees all slot locks of a device as
 * one lock (zram.slot_lock) of spinlock_t's wait type, so it reports two
 * held at once and sleeping under one; the bit says which slot is held.
 * PREEMPT_RT, where zsmalloc's spinlock_t sleeps, uses a spinlock_t per slot.
 */
#ifndef CONFIG_PREEMPT_RT
static inline unsigned long *zram_slot_lock_word(struct zram *zram, u32 index)
{
	return &zram->table[index].flags;
}

static inline void zram_slot_assert_held(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->slot_lock);
	if (IS_ENABLED(CONFIG_PROVE_LOCKING))
		WARN_ON_ONCE(!test_bit(ZRAM_SLOT_LOCK,
				       zram_slot_lock_word(zram, index)));
}

static inline void zram_slot_lock(struct zram *zram, u32 index)
	__acquires(&zram->slot_lock)
{
	unsigned long *word = zram_slot_lock_word(zram, index);

	spin_acquire(&zram->slot_lock.dep_map, 0, 0, _RET_IP_);
	if (!bit_spin_trylock(ZRAM_SLOT_LOCK, word)) {
		lock_contended(&zram->slot_lock.dep_map, _RET_IP_);
		bit_spin_lock(ZRAM_SLOT_LOCK, word);
	}
	lock_acquired(&zram->slot_lock.dep_map, _RET_IP_);
}

static inline void zram_slot_unlock(struct zram *zram, u32 index)
	__releases(&zram->slot_lock)
{
	spin_release(&zram->slot_lock.dep_map, _RET_IP_);
	__bit_spin_unlock(ZRAM_SLOT_LOCK, zram_slot_lock_word(zram, index));
}

static inline bool zram_slot_trylock(struct zram *zram, u32 index)
{
	if (!bit_spin_trylock(ZRAM_SLOT_LOCK, zram_slot_lock_word(zram, index)))
		return false;
	spin_acquire(&zram->slot_lock.dep_map, 0, 1, _RET_IP_);
	return true;
}
#else /* CONFIG_PREEMPT_RT */
static inline void zram_slot_assert_held(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].rt_lock);
}

static inline void zram_slot_lock(struct zram *zram, u32 index)
	__acquires(&zram->slot_lock)
{
	spin_lock(&zram->table[index].rt_lock);
}

static inline void zram_slot_unlock(struct zram *zram, u32 index)
	__releases(&zram->slot_lock)
{
	spin_unlock(&zram->table[index].rt_lock);
}

static inline bool zram_slot_trylock(struct zram *zram, u32 index)
{
	return spin_trylock(&zram->table[index].rt_lock);
}
#endif /* CONFIG_PREEMPT_RT */

/*
 * zram_slot_lock_init(zram): lockdep's view of the slot locks of a device
 * being added, before its table; one class per call site, of spinlock_t's
 * wait type. Process context.
 */
#define zram_slot_lock_init(zram)					\
do {									\
	static struct lock_class_key __key;				\
									\
	lockdep_init_map_wait(&(zram)->slot_lock.dep_map,		\
			      "zram->slot_lock", &__key, 0,		\
			      LD_WAIT_CONFIG);				\
} while (0)

static inline bool zram_slot_lock_io(struct zram *zram, u32 index, bool nowait)
{
	if (nowait)
		return zram_slot_trylock(zram, index);
	zram_slot_lock(zram, index);
	return true;
}

static inline bool zram_test_flag(struct zram *zram, u32 index,
				  enum zram_pageflags flag)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].flags & BIT(flag);
}

static inline unsigned long zram_get_handle(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].handle;
}

/* Size in bytes of the slot's zsmalloc object. */
static inline size_t zram_get_obj_size(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].flags & ZRAM_OBJ_SIZE_MASK;
}

/* Priority of the compressor that made the slot's object (0: primary). */
static inline u32 zram_slot_get_prio(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return (zram->table[index].flags >> ZRAM_COMP_PRIO_BIT0) &
	       ZRAM_COMP_PRIO_MASK;
}

/* Where a written-back slot's data is; slot lock held. */
static inline void zram_slot_wb_loc(struct zram *zram, u32 index,
				    struct zram_bdev_loc *loc)
{
	unsigned long handle = zram_get_handle(zram, index);

	loc->block = handle;
	loc->next = 0;
	loc->offset = 0;
	loc->len = PAGE_SIZE;
	loc->prio = 0;
	if (!zram_test_flag(zram, index, ZRAM_PACKED))
		return;
	loc->block = zram_loc_block(handle);
	loc->len = zram_get_obj_size(zram, index);
	loc->prio = zram_slot_get_prio(zram, index);
	loc->offset = zram_loc_offset(handle);
	if (loc->offset + loc->len > PAGE_SIZE)
		loc->next = loc->block + 1 + zram_loc_gap(handle);
}

/* True when the slot holds data in any storage state. */
static inline bool zram_slot_allocated(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].handle ||
	       zram_test_flag(zram, index, ZRAM_SAME) ||
	       zram_test_flag(zram, index, ZRAM_WB);
}

/* Access time of a slot in boottime seconds, 0 untracked; slot lock held. */
#if defined(CONFIG_ZRAM_TRACK_ENTRY_ACTIME) && BITS_PER_LONG == 64
static inline u32 zram_slot_get_actime(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].flags >> ZRAM_ACTIME_SHIFT;
}
#elif defined(CONFIG_ZRAM_TRACK_ENTRY_ACTIME)
static inline u32 zram_slot_get_actime(struct zram *zram, u32 index)
{
	zram_slot_assert_held(zram, index);
	return zram->table[index].ac_time;
}
#else
static inline u32 zram_slot_get_actime(struct zram *zram, u32 index)
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
void zram_slot_mark_idle(struct zram *zram, u32 cutoff);

/* For the zram.pp_lock holder: a hint for writeback, changes nothing. */
bool zram_slot_wb_block(struct zram *zram, u32 index, unsigned long *block);

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
