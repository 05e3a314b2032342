/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interface of the writeback engine (zram_wb*.c), which moves slots from RAM
 * to the backing device. Included by zram.h: struct zram is incomplete here.
 */
#ifndef _ZRAM_WB_H_
#define _ZRAM_WB_H_

#include <linux/cleanup.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "zram_extent.h"

struct zram;
struct zram_wb_ctl;

/* Writeback mode: which stored slots qualify. 0 qualifies any of them. */
#define ZRAM_WB_IDLE		BIT(0)	/* ZRAM_IDLE set */
#define ZRAM_WB_HUGE		BIT(1)	/* ZRAM_HUGE set */
#define ZRAM_WB_INCOMPRESSIBLE	BIT(2)	/* ZRAM_INCOMPRESSIBLE set */

#ifdef CONFIG_ZRAM_WRITEBACK

/* writeback_limit and bd_stat count in 4 KiB units. */
#define ZRAM_WB_UNITS_PER_PAGE	(PAGE_SIZE / SZ_4K)

/**
 * struct zram_wb - writeback state of one zram device
 * @cursor: the block allocator's next-fit cursor; zram.pp_lock
 * @limit_lock: guards @limit_enable, @limit and @limit_gen; process context
 * @limit_enable: writeback_limit is enforced
 * @limit: remaining writeback budget, 4 KiB units
 * @limit_gen: bumped on every store that changes @limit or @limit_enable,
 *	so budget a writeback gives back never lands in a newer budget
 * @batch_size: writeback_batch_size, pages in flight per writeback;
 *	WRITE_ONCE() by the store, sampled once by each writeback
 * @max_bio_pages: most pages per writeback bio (debugfs); sampled likewise
 * @compressed: compressed_writeback; written under init_lock (write) only
 *	while uninitialized, so fixed while zram.pp_lock is held
 * @large_folios: a request's buffer may be one large folio (debugfs
 *	wb_large_folios; false: order-0 folios only); sampled likewise
 * @spare: the last writeback call's state with its idle requests and their
 *	buffers, for the next call; zram.pp_lock
 * @spare_release: frees @spare when no writeback call came for a while
 */
struct zram_wb {
	struct zram_extent_cursor cursor;
	spinlock_t limit_lock;	/* guards @limit_* */
	bool limit_enable;
	u64 limit;
	u64 limit_gen;
	unsigned int batch_size;
	u32 max_bio_pages;
	bool compressed;
	bool large_folios;
	struct zram_wb_ctl *spare;
	struct delayed_work spare_release;
};

/**
 * struct zram_wb_range - a slot range to write back, from one parameter
 * @mode: ZRAM_WB_* bits the slots must match
 * @lo: first slot index
 * @hi: slot index after the last one
 */
struct zram_wb_range {
	unsigned int mode;
	unsigned long lo;
	unsigned long hi;
};

void zram_wb_init(struct zram *zram);
void zram_wb_reset(struct zram *zram);
int zram_wb_run(struct zram *zram, const struct zram_wb_range *ranges, int nr_ranges);

extern const struct attribute_group zram_wb_attr_group;

/* Whether writeback packs compressed objects (compressed_writeback). */
static inline bool zram_wb_packs(const struct zram_wb *wb)
{
	return wb->compressed;
}

#else /* CONFIG_ZRAM_WRITEBACK */

struct zram_wb {
};

static inline void zram_wb_init(struct zram *zram)
{
}

static inline void zram_wb_reset(struct zram *zram)
{
}

static inline bool zram_wb_packs(const struct zram_wb *wb)
{
	return false;
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
