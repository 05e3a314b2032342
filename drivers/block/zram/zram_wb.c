// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram writeback engine: selects slots, reserves backing device blocks and
 * writes the slots with up to writeback_batch_size pages in flight. A bio
 * completion only queues its request; the writer (zram.pp_lock held)
 * commits each slot still ZRAM_WB_SELECTED to its block. No slot is
 * selected again while a bio carrying it is in flight, so the mark proves
 * the data written is the slot's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "zram_extent.h"
#include "zram_slot.h"
#include "zram_wb_internal.h"

/* Default writeback_batch_size: 32 requests of ZRAM_WB_MAX_BIO_PAGES. */
#define ZRAM_WB_DEF_BATCH_SIZE	(32 * ZRAM_WB_MAX_BIO_PAGES)
/* Most pages in flight per writeback, whatever writeback_batch_size says. */
#define ZRAM_WB_MAX_INFLIGHT_PAGES	4096
/* Fewest requests a writeback_batch_size of 4 pages or more is split into. */
#define ZRAM_WB_MIN_REQS	4
/* Most slots in a chunk, and most slots walked before it is written. */
#define ZRAM_WB_SELECT_CHUNK	1024
#define ZRAM_WB_SCAN_CHUNK	(16 * ZRAM_WB_SELECT_CHUNK)

/*
 * Most pages the writer holds plugged before it sends them: adjacent
 * requests may merge up to that much (as the device's limits allow), and
 * the device starts on them while the next ones are filled, so they
 * complete in time to be taken again rather than new ones allocated.
 */
#define ZRAM_WB_PLUG_PAGES	128

/*
 * How long the buffers of a writeback call are kept for the next call, and
 * how many pages of them at most.
 */
#define ZRAM_WB_SPARE_JIFFIES	HZ
#define ZRAM_WB_SPARE_PAGES	256

/*
 * Writeback bios are flagged as direct I/O writes are, which blk-wbt does
 * not throttle: wbt's depth counts requests and would hold the single-block
 * bios of a fragmented backing device to a handful. writeback_batch_size
 * bounds the pages in flight, knobs.max_bios the bios, below the device's
 * queue depth.
 */
#define ZRAM_WB_BIO_OPF		(REQ_OP_WRITE | REQ_SYNC | REQ_IDLE)

/* Most slots per request when packing; unpacked, one slot per block. */
#define ZRAM_WB_MAX_PACKED_OBJS	(8 * ZRAM_WB_MAX_BIO_PAGES)

/* Debits writeback_limit if enforced; returns the pages that may be written. */
static unsigned int zram_wb_limit_take(struct zram_wb *wb,
				       unsigned int nr_pages,
				       unsigned int *nr_debited, u64 *gen)
{
	u64 avail;

	*nr_debited = 0;
	spin_lock(&wb->limit_lock);
	*gen = wb->limit_gen;
	if (wb->limit_enable) {
		avail = div_u64(wb->limit, ZRAM_WB_UNITS_PER_PAGE);
		if (avail < nr_pages)
			nr_pages = avail;
		wb->limit -= (u64)nr_pages * ZRAM_WB_UNITS_PER_PAGE;
		*nr_debited = nr_pages;
	}
	spin_unlock(&wb->limit_lock);
	return nr_pages;
}

/* Credits back unwritten pages unless the budget was stored since the debit. */
static void zram_wb_limit_give(struct zram_wb *wb, unsigned int nr_pages,
			       u64 gen)
{
	if (!nr_pages)
		return;
	spin_lock(&wb->limit_lock);
	if (wb->limit_gen == gen)
		wb->limit += (u64)nr_pages * ZRAM_WB_UNITS_PER_PAGE;
	spin_unlock(&wb->limit_lock);
}

/*
 * Adds the slots of [@index, @end) that match @mode to the chunk in index
 * order, which puts neighbouring slots (often read together) on
 * neighbouring blocks. Stops when the chunk is full or has walked
 * ZRAM_WB_SCAN_CHUNK slots; returns the index to resume at.
 */
static unsigned long zram_wb_select(struct zram_wb_ctl *ctl,
				    unsigned int mode, unsigned long index,
				    unsigned long end)
{
	struct zram *zram = ctl->zram;

	lockdep_assert_held(&zram->pp_lock);
	end = min(end, index + ZRAM_WB_SCAN_CHUNK - ctl->walked);
	for (; index < end && ctl->nr_selected < ZRAM_WB_SELECT_CHUNK;
	     index++) {
		ctl->walked++;
		if (zram_slot_wb_select(zram, index, mode))
			ctl->slots[ctl->nr_selected++] = index;
	}
	return index;
}

/* Drops the selection of the slots not taken; the chunk is empty after. */
static void zram_wb_unselect_rest(struct zram_wb_ctl *ctl)
{
	for (; ctl->next < ctl->nr_selected; ctl->next++)
		zram_slot_wb_unselect(ctl->zram, ctl->slots[ctl->next]);
	ctl->nr_selected = 0;
	ctl->next = 0;
	ctl->peeked = 0;
	ctl->walked = 0;
}

/* Freed blocks may join short runs into long ones: forget the short region. */
static void zram_wb_reclaim_blocks(struct zram_wb_ctl *ctl)
{
	if (zram_bdev_harvest(ctl->zram, &ctl->staged))
		zram_extent_forget_short(&ctl->zram->wb.cursor);
}

/* When the device looks full, commits what is in flight, harvests, retries. */
static int zram_wb_reserve(struct zram_wb_ctl *ctl, unsigned int nr_pages,
			   unsigned long *block)
{
	struct zram_bdev *bd = &ctl->zram->backing;
	struct zram_wb *wb = &ctl->zram->wb;
	int ret;

	lockdep_assert_held(&ctl->zram->pp_lock);
	ret = zram_extent_reserve(bd->bitmap, bd->nr_blocks, &wb->cursor,
				  nr_pages, block);
	if (ret != -ENOSPC)
		return ret;
	zram_wb_wait_all(ctl);
	zram_wb_reclaim_blocks(ctl);
	return zram_extent_reserve(bd->bitmap, bd->nr_blocks, &wb->cursor,
				   nr_pages, block);
}

/* After a short first extent, adds more (no waiting), up to @nr_blocks. */
static int zram_wb_reserve_seq(struct zram_wb_ctl *ctl,
			       struct zram_wb_req *req, unsigned int nr_blocks)
{
	struct zram_bdev *bd = &ctl->zram->backing;
	struct zram_wb *wb = &ctl->zram->wb;
	unsigned int n = 0;
	unsigned long block;
	int ret;

	ret = zram_wb_reserve(ctl, nr_blocks, &block);
	if (ret < 0)
		return ret;
	for (;;) {
		while (ret--)
			req->blocks[n++] = block++;
		if (n == nr_blocks)
			break;
		ret = zram_extent_reserve(bd->bitmap, bd->nr_blocks,
					  &wb->cursor, nr_blocks - n, &block);
		if (ret < 0)
			break;
	}
	return n;
}

/* Blocks [next, next + left) reserved next-fit for a request, not yet used. */
struct zram_wb_extent {
	unsigned long next;
	unsigned int left;
};

/* Block of slot @index's predecessor: placed just before, or written back. */
static bool zram_wb_prev_block(struct zram_wb_ctl *ctl, u32 index,
			       unsigned long *block)
{
	if (!index)
		return false;
	if (ctl->last == index - 1) {
		*block = ctl->last_block;
		return true;
	}
	return zram_slot_wb_block(ctl->zram, index - 1, block);
}

/* Block of slot @index's successor, if written back; a selected one is not. */
static bool zram_wb_next_block(struct zram_wb_ctl *ctl, u32 index,
			       unsigned long *block)
{
	if (ctl->next < ctl->nr_selected && ctl->slots[ctl->next] == index + 1)
		return false;
	return zram_slot_wb_block(ctl->zram, index + 1, block);
}

/*
 * Reserves the free block right after the predecessor's block, else right
 * before the successor's. Return: true with *@block reserved.
 */
static bool zram_wb_place_near(struct zram_wb_ctl *ctl, u32 index,
			       unsigned long *block)
{
	struct zram_bdev *bd = &ctl->zram->backing;
	struct zram_extent_cursor *cur = &ctl->zram->wb.cursor;
	unsigned long near;

	if (zram_wb_prev_block(ctl, index, &near) &&
	    zram_extent_reserve_at(bd->bitmap, bd->nr_blocks, cur, near + 1)) {
		*block = near + 1;
		return true;
	}
	/* Block 0 is never a slot's: near - 1 does not wrap. */
	if (zram_wb_next_block(ctl, index, &near) &&
	    zram_extent_reserve_at(bd->bitmap, bd->nr_blocks, cur, near - 1)) {
		*block = near - 1;
		return true;
	}
	return false;
}

/*
 * Picks slot @index's block: next to a neighbour's, else the next block of
 * @ext, which is reserved for the @want slots left when empty. A slot
 * following the one placed last takes @ext's next block when that block
 * is adjacent. Return: 0, or zram_wb_reserve()'s errno.
 */
static int zram_wb_pick_block(struct zram_wb_ctl *ctl,
			      struct zram_wb_extent *ext, u32 index,
			      unsigned int want, unsigned long *block)
{
	bool follows = ext->left && index && ctl->last == index - 1 &&
		       ext->next == ctl->last_block + 1;
	int ret;

	if (!follows && zram_wb_place_near(ctl, index, block))
		return 0;
	if (!ext->left) {
		ret = zram_wb_reserve(ctl, want, &ext->next);
		if (ret < 0)
			return ret;
		ext->left = ret;
	}
	*block = ext->next++;
	ext->left--;
	return 0;
}

/*
 * Copies the next selected slots, up to @nr_blocks, each to its own buffer
 * page and a block zram_wb_pick_block() picks; skips slots that dropped
 * out. Sets @ctl->stop_err to -ENOMEM when a page cannot be allocated, or
 * to the reservation's errno; that slot stays selected, for the chunk's end.
 */
static unsigned int zram_wb_fill(struct zram_wb_ctl *ctl,
				 struct zram_wb_req *req,
				 unsigned int nr_blocks)
{
	struct zram_bdev *bd = &ctl->zram->backing;
	struct zram_wb_extent ext = { };
	unsigned int n = 0;
	struct page *page;
	u32 index;
	int ret;

	lockdep_assert_held(&ctl->zram->pp_lock);
	while (n < nr_blocks && ctl->next < ctl->nr_selected) {
		page = zram_wb_req_page(req, n);
		if (!page) {
			ctl->stop_err = -ENOMEM;
			break;
		}
		index = ctl->slots[ctl->next++];
		if (!zram_slot_wb_read(ctl->zram, index, req->mode, page))
			continue;
		ret = zram_wb_pick_block(ctl, &ext, index, nr_blocks - n,
					 &req->blocks[n]);
		if (ret < 0) {
			ctl->next--;
			ctl->stop_err = ret;
			break;
		}
		ctl->last = index;
		ctl->last_block = req->blocks[n];
		req->objs[n] = (struct zram_wb_obj){
			.index = index,
			.pos = n << PAGE_SHIFT,
			.len = PAGE_SIZE,
		};
		req->bufpg[n] = n;
		n++;
	}
	zram_extent_unreserve(bd->bitmap, bd->nr_blocks, &ctl->zram->wb.cursor,
			      ext.next, ext.left);
	req->nr_objs = n;
	req->nr_packed = 0;
	return n;
}

/*
 * Packs the next selected slots into blocks reserved next-fit; unused ones
 * go back at once. Sets @ctl->stop_err to the reservation's errno.
 */
static unsigned int zram_wb_fill_packed(struct zram_wb_ctl *ctl,
					struct zram_wb_req *req,
					unsigned int nr_blocks)
{
	unsigned long *bitmap = ctl->zram->backing.bitmap;
	unsigned int n, i;
	int ret;

	lockdep_assert_held(&ctl->zram->pp_lock);
	ret = zram_wb_reserve_seq(ctl, req, nr_blocks);
	if (ret < 0) {
		ctl->stop_err = ret;
		return 0;
	}
	n = zram_wb_pack(ctl, req, ret);
	for (i = n; i < ret; i++)
		zram_extent_release(bitmap, req->blocks[i], 1);
	return n;
}

static void zram_wb_end_io(struct bio *bio);

/* From fs_bio_set's mempool: does not fail. */
static struct bio *zram_wb_alloc_bio(struct zram_wb_ctl *ctl,
				     struct zram_wb_req *req,
				     unsigned int first, unsigned int len)
{
	struct bio *bio;
	unsigned int i, run;

	bio = bio_alloc(ctl->zram->backing.bdev, len, ZRAM_WB_BIO_OPF,
			GFP_NOIO);
	bio->bi_iter.bi_sector = zram_bdev_block_sector(req->blocks[first]);
	bio->bi_end_io = zram_wb_end_io;
	bio->bi_private = req;
	for (i = first; i < first + len; i += run) {
		if (!req->folio) {
			run = 1;
			bio_add_folio_nofail(bio, req->folios[req->bufpg[i]],
					     PAGE_SIZE, 0);
			continue;
		}
		for (run = 1; i + run < first + len; run++) {
			if (req->bufpg[i + run] != req->bufpg[i] + run)
				break;
		}
		bio_add_folio_nofail(bio, req->folio, run << PAGE_SHIFT,
				     req->bufpg[i] << PAGE_SHIFT);
	}
	return bio;
}

/* Blocks in the run of adjacent blocks that starts at block @first. */
static unsigned int zram_wb_run_len(const struct zram_wb_req *req,
				    unsigned int first)
{
	unsigned int i = first + 1;

	while (i < req->nr_blocks && req->blocks[i] == req->blocks[i - 1] + 1)
		i++;
	return i - first;
}

/* One bio per run of adjacent blocks, under the writer's plug. */
static void zram_wb_submit(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	struct zram_stats *stats = &ctl->zram->stats;
	unsigned int i, len;

	req->nr_bios = 0;
	for (i = 0; i < req->nr_blocks; i += zram_wb_run_len(req, i))
		req->nr_bios++;
	req->status = BLK_STS_OK;
	atomic_set(&req->pending, req->nr_bios);
	atomic_set(&req->failed, 0);
	atomic64_add(req->nr_bios, req->folio ? &stats->wb_bios_large_folio :
						&stats->wb_bios_order0_folios);

	ctl->inflight++;
	for (i = 0; i < req->nr_blocks; i += len) {
		if (atomic_read(&ctl->bios) >= ctl->knobs.max_bios)
			zram_wb_wait_bios(ctl);
		len = zram_wb_run_len(req, i);
		atomic_inc(&ctl->bios);
		submit_bio(zram_wb_alloc_bio(ctl, req, i, len));
	}
	ctl->plugged += req->nr_blocks;
	if (ctl->plugged >= ZRAM_WB_PLUG_PAGES)
		zram_wb_dispatch(ctl);
}

/*
 * Writes the next selected slots with one request; unused blocks and budget
 * go back at once. Sets @ctl->stop_err when the writeback must stop.
 */
static void zram_wb_write_one(struct zram_wb_ctl *ctl)
{
	struct zram_wb *wb = &ctl->zram->wb;
	unsigned int want, allowed, debited, n;
	struct zram_wb_req *req;
	u64 gen;

	lockdep_assert_held(&ctl->zram->pp_lock);
	req = zram_wb_get_req(ctl);
	if (!req) {
		ctl->stop_err = -ENOMEM;
		return;
	}
	if (ctl->knobs.packed)
		want = zram_wb_pack_estimate(ctl);
	else
		want = min(ctl->nr_selected - ctl->next,
			   ctl->knobs.max_bio_pages);
	allowed = zram_wb_limit_take(wb, want, &debited, &gen);
	if (!allowed) {
		/* Budget exhausted with slots left: -EIO (the ABI's errno). */
		ctl->stop_err = -EIO;
		goto out_put_req;
	}

	req->mode = ctl->mode;
	if (ctl->knobs.packed)
		n = zram_wb_fill_packed(ctl, req, allowed);
	else
		n = zram_wb_fill(ctl, req, allowed);
	zram_wb_limit_give(wb, debited ? allowed - n : 0, gen);
	if (!n)
		goto out_put_req;

	req->nr_blocks = n;
	req->nr_debited = debited ? n : 0;
	req->limit_gen = gen;
	zram_wb_submit(ctl, req);
	return;

out_put_req:
	zram_wb_put_req(ctl, req);
}

/* False once the writeback must stop; a killed writer stops with -EINTR. */
static bool zram_wb_go_on(struct zram_wb_ctl *ctl)
{
	if (!ctl->stop_err && fatal_signal_pending(current))
		ctl->stop_err = -EINTR;
	return !ctl->stop_err;
}

/* Writes the chunk with ctl->mode; it is empty after. */
static void zram_wb_write_selected(struct zram_wb_ctl *ctl)
{
	struct blk_plug plug;

	lockdep_assert_held(&ctl->zram->pp_lock);
	blk_start_plug(&plug);
	while (ctl->next < ctl->nr_selected && zram_wb_go_on(ctl))
		zram_wb_write_one(ctl);
	blk_finish_plug(&plug);
	ctl->plugged = 0;
	zram_wb_unselect_rest(ctl);
}

/* Blocks of a completed writeback bio (its iterator may be used up). */
static unsigned int zram_wb_bio_blocks(struct bio *bio)
{
	struct bio_vec *bv;
	unsigned int bytes = 0;
	int i;

	bio_for_each_bvec_all(bv, bio, i)
		bytes += bv->bv_len;
	return bytes >> PAGE_SHIFT;
}

/*
 * The writer waits for the bios in flight to drain to half of max_bios and
 * submits none meanwhile: the count passes that value once, and a wait
 * that begins after that sees it at once.
 */
static void zram_wb_bio_done(struct zram_wb_ctl *ctl)
{
	if (atomic_dec_return(&ctl->bios) == ctl->knobs.max_bios / 2 &&
	    wq_has_sleeper(&ctl->wait))
		wake_up(&ctl->wait);
}

/* Any context, hard irq too: only queues the request for the writer. */
static void zram_wb_end_io(struct bio *bio)
{
	struct zram_wb_req *req = bio->bi_private;
	struct zram_wb_ctl *ctl = req->ctl;
	unsigned long flags;

	/* Two bios may fail at once: either error will do. */
	if (bio->bi_status) {
		WRITE_ONCE(req->status, bio->bi_status);
		atomic_add(zram_wb_bio_blocks(bio), &req->failed);
	}
	bio_put(bio);
	/* Before @req is done: until then the writer keeps @ctl. */
	zram_wb_bio_done(ctl);
	if (!atomic_dec_and_test(&req->pending))
		return;
	/* ctl lives until the writer, taking ctl->lock after us, commits req. */
	spin_lock_irqsave(&ctl->lock, flags);
	list_add_tail(&req->node, &ctl->done);
	wake_up(&ctl->wait);
	spin_unlock_irqrestore(&ctl->lock, flags);
}

/*
 * Slots stay in RAM; blocks no slot pointed to are released at once. The
 * blocks its good bios wrote count in bd_writes and keep their budget.
 */
static void zram_wb_fail_req(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	unsigned long *bitmap = ctl->zram->backing.bitmap;
	unsigned int i, failed = atomic_read(&req->failed);
	struct zram_wb *wb = &ctl->zram->wb;

	for (i = 0; i < req->nr_objs; i++)
		zram_slot_wb_unselect(ctl->zram, req->objs[i].index);
	for (i = 0; i < req->nr_blocks; i++)
		zram_extent_release(bitmap, req->blocks[i], 1);
	atomic64_add(req->nr_blocks - failed, &ctl->zram->stats.bd_writes);
	zram_wb_limit_give(wb, req->nr_debited ? failed : 0, req->limit_gen);
	ctl->io_error = true;
}

/* Where a request put a slot's data. */
static void zram_wb_obj_loc(const struct zram_wb_req *req,
			    const struct zram_wb_obj *obj,
			    struct zram_bdev_loc *loc)
{
	unsigned int i = obj->pos >> PAGE_SHIFT;

	loc->block = req->blocks[i];
	loc->offset = offset_in_page(obj->pos);
	loc->len = obj->len;
	loc->next = 0;
	/* Not used to install: the slot keeps its own priority. */
	loc->prio = 0;
	if (loc->offset + loc->len > PAGE_SIZE)
		loc->next = req->blocks[i + 1];
}

/* A slot changed meanwhile gives its block back, not its budget. */
static void zram_wb_commit(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	struct zram *zram = ctl->zram;
	const struct zram_wb_obj *obj;
	struct zram_bdev_loc loc;
	unsigned int i;

	lockdep_assert_held(&zram->pp_lock);
	if (req->status) {
		zram_wb_fail_req(ctl, req);
		return;
	}
	atomic64_add(req->nr_blocks, &zram->stats.bd_writes);
	zram_wb_hold_packed(zram, req);
	for (i = 0; i < req->nr_objs; i++) {
		obj = &req->objs[i];
		zram_wb_obj_loc(req, obj, &loc);
		if (obj->len != PAGE_SIZE) {
			if (!zram_slot_install_wb_packed(zram, obj->index,
							 req->mode, &loc))
				zram_bdev_put_loc(zram, &loc);
			continue;
		}
		/* Never a slot's block, never read: released at once. */
		if (!zram_slot_install_wb(zram, obj->index, req->mode,
					  loc.block))
			zram_extent_release(zram->backing.bitmap, loc.block, 1);
	}
}

/**
 * zram_wb_commit_done - commit the completed requests, make them idle
 * @ctl: writeback
 *
 * Context: the writer (zram.pp_lock held); takes @ctl->lock and slot locks;
 * may sleep.
 */
void zram_wb_commit_done(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req;
	unsigned int nr = 0;
	LIST_HEAD(done);

	spin_lock_irq(&ctl->lock);
	list_splice_init(&ctl->done, &done);
	spin_unlock_irq(&ctl->lock);
	if (list_empty(&done))
		return;

	list_for_each_entry(req, &done, node) {
		zram_wb_commit(ctl, req);
		nr++;
		cond_resched();
	}
	spin_lock_irq(&ctl->lock);
	list_splice_tail(&done, &ctl->free);
	spin_unlock_irq(&ctl->lock);
	ctl->inflight -= nr;
}

/* Frees an idle writeback (no request in flight); NULL is ignored. */
static void zram_wb_ctl_free(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req, *tmp;

	if (!ctl)
		return;
	WARN_ON_ONCE(ctl->inflight || ctl->nr_selected ||
		     !list_empty(&ctl->done));
	list_for_each_entry_safe(req, tmp, &ctl->free, node)
		zram_wb_req_free(req);
	kfree(ctl->sizes);
	kfree(ctl->slots);
	kfree(ctl);
}

/* Pages per bio the block layer never splits (unmerged, a page a segment). */
static unsigned int zram_wb_max_bio_pages(struct zram *zram)
{
	struct request_queue *q = bdev_get_queue(zram->backing.bdev);
	struct zram_wb *wb = &zram->wb;
	unsigned int pages;

	pages = min3(READ_ONCE(wb->max_bio_pages),
		     queue_max_sectors(q) >> (PAGE_SHIFT - SECTOR_SHIFT),
		     queue_max_segments(q));
	pages = min_t(unsigned int, pages, ZRAM_WB_MAX_BIO_PAGES);
	return max(pages, 1U);
}

/* Most bios in flight: 3/4 of the device's queue depth, the rest for reads. */
static unsigned int zram_wb_max_bios(struct zram *zram)
{
	struct request_queue *q = bdev_get_queue(zram->backing.bdev);

	return max(3 * blk_queue_depth(q) / 4, 1U);
}

/*
 * Splits the pages in flight into at least ZRAM_WB_MIN_REQS requests so the
 * device sees several bios; lowers *@max_bio_pages to the pages per request.
 */
static unsigned int zram_wb_batch(struct zram_wb *wb,
				  unsigned int *max_bio_pages)
{
	unsigned int pages = clamp(READ_ONCE(wb->batch_size), 1U,
				   ZRAM_WB_MAX_INFLIGHT_PAGES);
	unsigned int per_req = max(pages / ZRAM_WB_MIN_REQS, 1U);

	/* a power of two, as the request's buffer folio is */
	if (per_req < *max_bio_pages)
		*max_bio_pages = rounddown_pow_of_two(per_req);
	return pages / *max_bio_pages;
}

/* The knobs a writeback call samples once. */
static void zram_wb_sample_knobs(struct zram *zram, struct zram_wb_knobs *k)
{
	struct zram_wb *wb = &zram->wb;

	k->packed = wb->compressed;
	k->max_bio_pages = zram_wb_max_bio_pages(zram);
	k->batch_size = zram_wb_batch(wb, &k->max_bio_pages);
	k->max_objs = k->packed ? ZRAM_WB_MAX_PACKED_OBJS : k->max_bio_pages;
	k->folio_order = 0;
	if (READ_ONCE(wb->large_folios))
		k->folio_order = order_base_2(k->max_bio_pages);
	k->max_bios = zram_wb_max_bios(zram);
}

static bool zram_wb_knobs_equal(const struct zram_wb_knobs *a,
				const struct zram_wb_knobs *b)
{
	return a->packed == b->packed && a->batch_size == b->batch_size &&
	       a->max_bio_pages == b->max_bio_pages &&
	       a->max_objs == b->max_objs && a->folio_order == b->folio_order &&
	       a->max_bios == b->max_bios;
}

/* An idle writeback made for @knobs; NULL when memory is short. */
static struct zram_wb_ctl *zram_wb_ctl_alloc(struct zram *zram,
					     const struct zram_wb_knobs *knobs)
{
	struct zram_wb_ctl *ctl;

	lockdep_assert_held(&zram->pp_lock);
	ctl = kzalloc_obj(*ctl);
	if (!ctl)
		return NULL;
	ctl->zram = zram;
	ctl->knobs = *knobs;
	INIT_LIST_HEAD(&ctl->free);
	INIT_LIST_HEAD(&ctl->done);
	spin_lock_init(&ctl->lock);
	init_waitqueue_head(&ctl->wait);

	ctl->slots = kzalloc_objs(*ctl->slots, ZRAM_WB_SELECT_CHUNK);
	if (!ctl->slots)
		goto out_free;
	if (knobs->packed) {
		ctl->sizes = kzalloc_objs(*ctl->sizes, ZRAM_WB_SELECT_CHUNK);
		/* Set up with the device: zram_bdev_pack_init(). */
		if (!ctl->sizes || WARN_ON_ONCE(!zram->backing.pack))
			goto out_free;
	}
	return ctl;

out_free:
	zram_wb_ctl_free(ctl);
	return NULL;
}

/*
 * The spare writeback, with the requests and buffers of the last call, when
 * the knobs still match; else a new one. NULL when memory is short.
 */
static struct zram_wb_ctl *zram_wb_ctl_get(struct zram *zram)
{
	struct zram_wb_ctl *ctl = zram->wb.spare;
	struct zram_wb_knobs knobs;

	lockdep_assert_held(&zram->pp_lock);
	zram->wb.spare = NULL;
	zram_wb_sample_knobs(zram, &knobs);
	if (ctl && zram_wb_knobs_equal(&ctl->knobs, &knobs)) {
		ctl->stop_err = 0;
		ctl->io_error = false;
		return ctl;
	}
	zram_wb_ctl_free(ctl);
	return zram_wb_ctl_alloc(zram, &knobs);
}

/*
 * Keeps an idle writeback as the spare: calls that follow each other reuse
 * its buffers instead of allocating them, which is what a call costs most
 * beside its data. It keeps ZRAM_WB_SPARE_PAGES of buffers at most, and is
 * freed ZRAM_WB_SPARE_JIFFIES after the last call.
 */
static void zram_wb_ctl_park(struct zram_wb_ctl *ctl)
{
	struct zram_wb *wb = &ctl->zram->wb;

	lockdep_assert_held(&ctl->zram->pp_lock);
	zram_wb_trim(ctl, max(ZRAM_WB_SPARE_PAGES /
			      roundup_pow_of_two(ctl->knobs.max_bio_pages),
			      1UL));
	wb->spare = ctl;
	mod_delayed_work(system_dfl_wq, &wb->spare_release,
			 ZRAM_WB_SPARE_JIFFIES);
}

/*
 * Only tries zram.pp_lock and takes no other lock that may sleep, so
 * zram_wb_reset() may cancel it synchronously holding pp_lock and
 * init_lock; when pp_lock is busy it tries again later.
 */
static void zram_wb_spare_release(struct work_struct *work)
{
	struct zram_wb *wb = container_of(to_delayed_work(work),
					  struct zram_wb, spare_release);
	struct zram *zram = container_of(wb, struct zram, wb);

	if (!mutex_trylock(&zram->pp_lock)) {
		mod_delayed_work(system_dfl_wq, &wb->spare_release,
				 ZRAM_WB_SPARE_JIFFIES);
		return;
	}
	zram_wb_ctl_free(wb->spare);
	wb->spare = NULL;
	mutex_unlock(&zram->pp_lock);
}

/*
 * Selects the slots of @range into the chunk, which is written once full or
 * once it walked ZRAM_WB_SCAN_CHUNK slots, so no slot stays selected long.
 */
static void zram_wb_run_range(struct zram_wb_ctl *ctl,
			      const struct zram_wb_range *range)
{
	unsigned long index = range->lo;

	lockdep_assert_held(&ctl->zram->pp_lock);
	while (index < range->hi && zram_wb_go_on(ctl)) {
		index = zram_wb_select(ctl, range->mode, index, range->hi);
		if (ctl->nr_selected == ZRAM_WB_SELECT_CHUNK ||
		    ctl->walked >= ZRAM_WB_SCAN_CHUNK)
			zram_wb_write_selected(ctl);
		cond_resched();
	}
}

/*
 * True when ranges[@i] shares a slot with one of ranges[@first..@i - 1],
 * whose largest end is @max_hi; ranges in ascending order never scan.
 */
static bool zram_wb_overlaps(const struct zram_wb_range *ranges, int first,
			     int i, unsigned long max_hi)
{
	int j;

	if (ranges[i].lo >= max_hi)
		return false;
	for (j = first; j < i; j++) {
		if (ranges[i].lo < ranges[j].hi && ranges[j].lo < ranges[i].hi)
			return true;
	}
	return false;
}

/*
 * Ranges share one chunk, so several ranges batch and pack as one. A range
 * that overlaps one since the last wait first waits for every bio in
 * flight: a slot freed and stored again meanwhile must not be selected a
 * second time while a bio with its old data may still commit.
 */
static void zram_wb_run_ranges(struct zram_wb_ctl *ctl,
			       const struct zram_wb_range *ranges,
			       int nr_ranges)
{
	unsigned long max_hi = 0;
	int i, first = 0;
	bool overlaps;

	lockdep_assert_held(&ctl->zram->pp_lock);
	ctl->mode = ranges[0].mode;
	for (i = 0; i < nr_ranges && zram_wb_go_on(ctl); i++) {
		overlaps = zram_wb_overlaps(ranges, first, i, max_hi);
		if (overlaps || ranges[i].mode != ctl->mode) {
			zram_wb_write_selected(ctl);
			ctl->mode = ranges[i].mode;
		}
		if (overlaps) {
			zram_wb_wait_all(ctl);
			first = i;
			max_hi = 0;
		}
		zram_wb_run_range(ctl, &ranges[i]);
		max_hi = max(max_hi, ranges[i].hi);
	}
	zram_wb_write_selected(ctl);
}

/**
 * zram_wb_run - write back the slots of the given ranges
 * @zram: initialized device with a backing device
 * @ranges: parsed parameters, run in order
 * @nr_ranges: number of @ranges, at least 1
 *
 * Context: process context, zram.pp_lock held (keeps the device
 * initialized); sleeps.
 * Return: 0; -EIO when a bio failed (the other slots were still written),
 * else -EIO when writeback_limit stopped it with a selected slot left,
 * -ENOSPC when the backing device is full, -ENOMEM, or -EINTR when the
 * writer was killed (it stops once the requests in flight are committed).
 */
int zram_wb_run(struct zram *zram, const struct zram_wb_range *ranges,
		int nr_ranges)
{
	struct zram_wb_ctl *ctl;
	int ret;

	lockdep_assert_held(&zram->pp_lock);
	ctl = zram_wb_ctl_get(zram);
	if (!ctl)
		return -ENOMEM;
	zram_wb_reclaim_blocks(ctl);
	ctl->last = U32_MAX;
	zram_wb_run_ranges(ctl, ranges, nr_ranges);
	zram_wb_wait_all(ctl);

	/* A failed bio is reported before the reason the writeback stopped. */
	ret = ctl->io_error ? -EIO : ctl->stop_err;
	zram_wb_ctl_park(ctl);
	return ret;
}

/**
 * zram_wb_init - initialize the writeback state of a new device
 * @zram: device, before its sysfs attributes appear
 *
 * Context: process context.
 */
void zram_wb_init(struct zram *zram)
{
	struct zram_wb *wb = &zram->wb;

	spin_lock_init(&wb->limit_lock);
	INIT_DELAYED_WORK(&wb->spare_release, zram_wb_spare_release);
	wb->batch_size = ZRAM_WB_DEF_BATCH_SIZE;
	wb->max_bio_pages = ZRAM_WB_MAX_BIO_PAGES;
	wb->large_folios = true;
}

/**
 * zram_wb_reset - release the backing device at device reset
 * @zram: device; every slot freed, no backing device read in flight
 *
 * Frees the spare writeback. Keeps writeback_limit*, writeback_batch_size
 * and compressed_writeback. May run twice in a row (hot_remove); the
 * second run changes nothing.
 *
 * Context: process context, zram.pp_lock and init_lock (write) held;
 * sleeps.
 */
void zram_wb_reset(struct zram *zram)
{
	struct zram_wb *wb = &zram->wb;

	lockdep_assert_held(&zram->pp_lock);
	lockdep_assert_held_write(&zram->init_lock);
	cancel_delayed_work_sync(&wb->spare_release);
	zram_wb_ctl_free(wb->spare);
	wb->spare = NULL;
	zram_bdev_release(zram);
	zram_bdev_read_exit(zram);
	wb->cursor = (struct zram_extent_cursor){ };
}
