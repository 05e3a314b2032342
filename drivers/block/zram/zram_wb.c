// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram writeback: moves slots from RAM to a backing block device.
 *
 * A writeback runs in three stages, each with its own contract:
 *
 *  1. Slot selection (zram_wb_select()) walks a range of slots in
 *     ascending order and has the slot store mark the eligible ones
 *     ZRAM_WB_SELECTED (zram_slot_wb_select()), at most
 *     %ZRAM_WB_SELECT_CHUNK at a time.
 *  2. Block allocation (zram_extent.c) reserves runs of contiguous free
 *     blocks on the backing device, next-fit from a cursor.
 *  3. Submission and completion (zram_wb_write_one(), zram_wb_commit())
 *     copy the selected slots into a request's buffer, write each run of
 *     blocks with one bio, keep up to writeback_batch_size pages in
 *     flight, and commit each slot to its block when its request has
 *     completed. The writer commits the completed requests itself
 *     (zram_wb_commit_done()) whenever it needs a request and before it
 *     returns: a completion only queues its request and wakes the writer.
 *
 * A request writes one block sequence: one extent when the allocator has
 * a long enough one, else several short ones, a bio each, so a fragmented
 * backing device still gets many blocks per request. By default slot i of
 * the request is decompressed into buffer page i and written to block i.
 * With compressed_writeback (zram_wb_pack(), zram_wb_pack.c) the request
 * packs the slots' compressed objects back to back, as "Packed slots" in
 * zram.h describes (an object may run from one extent into the next),
 * and reserves, and debits from writeback_limit, the blocks its slots are
 * estimated to fill (zram_wb_pack_estimate()). Either way its data buffer
 * (zram_wb_req.c) is one large folio when the page allocator has one at
 * hand, else order-0 folios.
 *
 * Slot states during a writeback (all under the slot lock):
 *
 *   stored --select--> stored + ZRAM_WB_SELECTED --commit--> ZRAM_WB (block)
 *                          |                          or ZRAM_WB | ZRAM_PACKED
 *                          |                             (packed object)
 *                          +-- freed/overwritten (zram_slot_free() clears
 *                          |   ZRAM_WB_SELECTED), accessed in idle mode
 *                          |   (ZRAM_IDLE cleared), I/O error, limit,
 *                          |   ENOSPC --> stored, ZRAM_WB_SELECTED cleared
 *
 * The transitions are the slot store's (zram_slot_wb_select(),
 * zram_slot_wb_read(), zram_slot_wb_peek(), zram_slot_wb_read_obj(),
 * zram_slot_install_wb(), zram_slot_install_wb_packed(),
 * zram_slot_wb_unselect()); only the one writeback that holds
 * zram.pp_lock asks for them. Within one slot range a slot is selected at
 * most once (the walk only goes up), but ranges may repeat or overlap: a
 * slot in flight in bio R, then overwritten (ZRAM_WB_SELECTED cleared),
 * could be selected again by a later range with its new data, and R's
 * completion would then commit the old data. zram_wb_run() therefore
 * waits for every bio in flight before it selects for the next range.
 * With that, a slot never regains ZRAM_WB_SELECTED while a bio carrying
 * it is in flight, and finding the mark still set at commit proves the
 * data we wrote is the slot's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cleanup.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "zram_extent.h"
#include "zram_slot.h"
#include "zram_wb_internal.h"

/*
 * writeback_batch_size counts pages in flight. The default keeps 32
 * requests of ZRAM_WB_MAX_BIO_PAGES pages in flight.
 */
#define ZRAM_WB_DEF_BATCH_SIZE	(32 * ZRAM_WB_MAX_BIO_PAGES)
/*
 * Most pages one writeback keeps in flight (16 MiB with 4 KiB pages),
 * whatever writeback_batch_size asks for.
 */
#define ZRAM_WB_MAX_INFLIGHT_PAGES	4096
/* Fewest requests a writeback_batch_size of 4 pages or more is split into. */
#define ZRAM_WB_MIN_REQS	4
/* Most slots selected, and most slots walked, before writing them. */
#define ZRAM_WB_SELECT_CHUNK	1024
#define ZRAM_WB_SCAN_CHUNK	(16 * ZRAM_WB_SELECT_CHUNK)

/*
 * Most slots one request carries when it packs them (compressed_writeback);
 * beyond, it writes fewer blocks. Otherwise one slot per block.
 */
#define ZRAM_WB_MAX_PACKED_OBJS	(8 * ZRAM_WB_MAX_BIO_PAGES)

/* ------------------------------------------------------------------ */
/* writeback_limit                                                    */
/* ------------------------------------------------------------------ */

/**
 * zram_wb_limit_take - debit writeback_limit before writing pages
 * @wb: writeback state
 * @nr_pages: pages about to be written
 * @nr_debited: out, pages debited (0 when the limit is not enabled)
 * @gen: out, budget generation to give pages back to
 *
 * Context: process context; takes limit_lock.
 * Return: pages that may be written, 0 to @nr_pages.
 */
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

/**
 * zram_wb_limit_give - credit back pages debited but not written
 * @wb: writeback state
 * @nr_pages: pages to credit, at most what zram_wb_limit_take() debited
 * @gen: generation zram_wb_limit_take() returned
 *
 * A budget written since the debit (new generation) is left alone: the
 * admin's new value is what counts from then on.
 *
 * Context: process context; takes limit_lock.
 */
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

/* ------------------------------------------------------------------ */
/* Stage 1: slot selection                                            */
/* ------------------------------------------------------------------ */

/**
 * zram_wb_select - stage 1: select the next chunk of slots
 * @ctl: writeback; its selection must be empty
 * @mode: ZRAM_WB_* bits the slots must match
 * @index: first slot index to look at
 * @end: slot index after the last one to look at
 *
 * Marks eligible slots ZRAM_WB_SELECTED and lists them in @ctl->slots, in
 * ascending slot index. Stops after %ZRAM_WB_SELECT_CHUNK slots selected or
 * %ZRAM_WB_SCAN_CHUNK slots looked at, so memory and the time between two
 * reschedule points stay bounded.
 *
 * Order: ascending slot index, kept through submission, puts neighbouring
 * slots on neighbouring blocks, often in one bio. Neighbouring slots tend
 * to be read together (swap readahead, sequential file reads), so reading
 * them back from the backing device is sequential too. Selecting by age or
 * size instead would need a sort and would scatter them.
 *
 * Context: process context, zram.pp_lock held; takes slot locks.
 * Return: the slot index to continue from.
 */
static unsigned long zram_wb_select(struct zram_wb_ctl *ctl,
				    unsigned int mode, unsigned long index,
				    unsigned long end)
{
	struct zram *zram = ctl->zram;

	lockdep_assert_held(&zram->pp_lock);
	ctl->nr_selected = 0;
	ctl->next = 0;
	ctl->peeked = 0;
	end = min(end, index + ZRAM_WB_SCAN_CHUNK);
	for (; index < end && ctl->nr_selected < ZRAM_WB_SELECT_CHUNK;
	     index++) {
		if (zram_slot_wb_select(zram, index, mode))
			ctl->slots[ctl->nr_selected++] = index;
	}
	return index;
}

/* Drops the selection of the slots no request took. */
static void zram_wb_unselect_rest(struct zram_wb_ctl *ctl)
{
	for (; ctl->next < ctl->nr_selected; ctl->next++)
		zram_slot_wb_unselect(ctl->zram, ctl->slots[ctl->next]);
}

/* ------------------------------------------------------------------ */
/* Stage 2: block allocation                                          */
/* ------------------------------------------------------------------ */

/*
 * Makes the blocks freed since the last harvest reusable; they may have
 * joined the short runs of a fragmented region into long ones, so the
 * allocator forgets the region. zram.pp_lock held; sleeps.
 */
static void zram_wb_reclaim_blocks(struct zram *zram)
{
	if (zram_bdev_harvest(zram))
		zram_extent_forget_short(&zram->wb.cursor);
}

/**
 * zram_wb_reserve - stage 2: reserve the first extent of a request
 * @ctl: writeback
 * @nr_pages: most blocks wanted
 * @block: out, first block reserved
 *
 * When the backing device looks full, waits for the bios in flight,
 * harvests the blocks freed meanwhile and tries once more: failed bios and
 * slots that changed meanwhile give their blocks back when committed.
 *
 * Context: process context, zram.pp_lock held; sleeps.
 * Return: blocks reserved (1 to @nr_pages) or -ENOSPC.
 */
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
	zram_wb_reclaim_blocks(ctl->zram);
	return zram_extent_reserve(bd->bitmap, bd->nr_blocks, &wb->cursor,
				   nr_pages, block);
}

/**
 * zram_wb_reserve_seq - stage 2: reserve a request's block sequence
 * @ctl: writeback
 * @req: request; its block sequence is filled in
 * @nr_blocks: blocks wanted, 1 to @ctl->max_bio_pages
 *
 * Reserves one extent (zram_wb_reserve()). When that extent is short,
 * reserves more, next-fit after it, until @nr_blocks blocks or the device
 * is full, without waiting: on a fragmented device a request then still
 * carries many slots, each short extent written by a bio of its own.
 *
 * Context: process context, zram.pp_lock held; sleeps.
 * Return: blocks reserved (1 to @nr_blocks) or -ENOSPC.
 */
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

/* ------------------------------------------------------------------ */
/* Stage 3, part 1: submission                                        */
/* ------------------------------------------------------------------ */

/**
 * zram_wb_fill - copy the next selected slots into a request, whole pages
 * @ctl: writeback
 * @req: request, its mode set
 * @nr_blocks: blocks reserved for it (pages wanted)
 *
 * Slot i goes to block i of the sequence, from buffer page i. Slots that
 * dropped out are skipped, so the pages stay in slot order without holes.
 *
 * Context: process context, zram.pp_lock held (owns @ctl's selection);
 * may sleep (page allocation).
 * Return: pages filled, 0 to @nr_blocks. Sets @ctl->stop_err to -ENOMEM
 * when a page cannot be allocated.
 */
static unsigned int zram_wb_fill(struct zram_wb_ctl *ctl,
				 struct zram_wb_req *req,
				 unsigned int nr_blocks)
{
	unsigned int n = 0;
	struct page *page;
	u32 index;

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
		req->objs[n] = (struct zram_wb_obj){
			.index = index,
			.pos = n << PAGE_SHIFT,
			.len = PAGE_SIZE,
		};
		req->bufpg[n] = n;
		n++;
	}
	req->nr_objs = n;
	req->nr_packed = 0;
	return n;
}

static void zram_wb_end_io(struct bio *bio);

/*
 * Allocates and fills the bio writing blocks @first to @first + @len - 1
 * of a request's sequence, adjacent on the device: one bio_vec per run of
 * adjacent pages of a buffer folio, one per page of order-0 folios. From
 * fs_bio_set's mempool, so it does not fail.
 */
static struct bio *zram_wb_alloc_bio(struct zram_wb_ctl *ctl,
				     struct zram_wb_req *req,
				     unsigned int first, unsigned int len)
{
	struct bio *bio;
	unsigned int i, run;

	bio = bio_alloc(ctl->zram->backing.bdev, len, REQ_OP_WRITE | REQ_SYNC,
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

/*
 * Writes the request's block sequence: one bio per run of adjacent
 * blocks, each submitted as soon as it is filled.
 */
static void zram_wb_submit(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	struct zram_stats *stats = &ctl->zram->stats;
	unsigned int i, len;

	req->nr_bios = 0;
	for (i = 0; i < req->nr_blocks; i += zram_wb_run_len(req, i))
		req->nr_bios++;
	req->status = BLK_STS_OK;
	atomic_set(&req->pending, req->nr_bios);
	atomic64_add(req->nr_bios, req->folio ? &stats->wb_bios_large_folio :
						&stats->wb_bios_order0_folios);

	ctl->inflight++;
	for (i = 0; i < req->nr_blocks; i += len) {
		len = zram_wb_run_len(req, i);
		submit_bio(zram_wb_alloc_bio(ctl, req, i, len));
	}
}

/**
 * zram_wb_write_one - write the next selected slots with one request
 * @ctl: writeback with selected slots left
 * @mode: ZRAM_WB_* mode they were selected with
 *
 * Debits writeback_limit, reserves a block sequence (stage 2), fills or
 * packs a request and submits it; whatever ends up unused (blocks,
 * budget) goes back at once. Sets @ctl->stop_err when the writeback must
 * stop.
 *
 * Context: process context, zram.pp_lock held; sleeps.
 */
static void zram_wb_write_one(struct zram_wb_ctl *ctl, unsigned int mode)
{
	unsigned long *bitmap = ctl->zram->backing.bitmap;
	struct zram_wb *wb = &ctl->zram->wb;
	unsigned int want, allowed, debited, n, i;
	struct zram_wb_req *req;
	u64 gen;
	int ret;

	lockdep_assert_held(&ctl->zram->pp_lock);
	req = zram_wb_get_req(ctl);
	if (!req) {
		ctl->stop_err = -ENOMEM;
		return;
	}
	if (ctl->packed)
		want = zram_wb_pack_estimate(ctl, mode);
	else
		want = min(ctl->nr_selected - ctl->next, ctl->max_bio_pages);
	allowed = zram_wb_limit_take(wb, want, &debited, &gen);
	if (!allowed) {
		/* Budget exhausted with slots left: -EIO, as upstream. */
		ctl->stop_err = -EIO;
		goto out_put_req;
	}
	ret = zram_wb_reserve_seq(ctl, req, allowed);
	if (ret < 0) {
		ctl->stop_err = ret;
		zram_wb_limit_give(wb, debited, gen);
		goto out_put_req;
	}

	req->mode = mode;
	if (ctl->packed)
		n = zram_wb_pack(ctl, req, ret);
	else
		n = zram_wb_fill(ctl, req, ret);
	for (i = n; i < ret; i++)
		zram_extent_release(bitmap, req->blocks[i], 1);
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

/**
 * zram_wb_write_selected - write out the current selection
 * @ctl: writeback
 * @mode: ZRAM_WB_* mode the slots were selected with
 *
 * Plugs the submission loop so the block layer sees the bios together.
 * Slots left over when the writeback stops lose their selection.
 *
 * Context: process context, zram.pp_lock held; sleeps.
 */
static void zram_wb_write_selected(struct zram_wb_ctl *ctl, unsigned int mode)
{
	struct blk_plug plug;

	lockdep_assert_held(&ctl->zram->pp_lock);
	blk_start_plug(&plug);
	while (ctl->next < ctl->nr_selected && !ctl->stop_err)
		zram_wb_write_one(ctl, mode);
	blk_finish_plug(&plug);
	zram_wb_unselect_rest(ctl);
}

/* ------------------------------------------------------------------ */
/* Stage 3, part 2: completion and commit                             */
/* ------------------------------------------------------------------ */

/**
 * zram_wb_end_io - completion of a writeback bio
 * @bio: one of the request's bios
 *
 * The last bio of a request only moves it to ctl->done and wakes the
 * writer, which commits it: committing takes slot locks and frees
 * zsmalloc objects, which must not happen in interrupt context.
 *
 * Context: any, including hard interrupt.
 */
static void zram_wb_end_io(struct bio *bio)
{
	struct zram_wb_req *req = bio->bi_private;
	struct zram_wb_ctl *ctl = req->ctl;
	unsigned long flags;

	/* Two bios may fail at once: either error will do. */
	if (bio->bi_status)
		WRITE_ONCE(req->status, bio->bi_status);
	bio_put(bio);
	if (!atomic_dec_and_test(&req->pending))
		return;
	/*
	 * ctl is alive: this request counts in ctl->inflight until the
	 * writer has committed it, which takes ctl->lock after us.
	 */
	spin_lock_irqsave(&ctl->lock, flags);
	list_add_tail(&req->node, &ctl->done);
	wake_up(&ctl->wait);
	spin_unlock_irqrestore(&ctl->lock, flags);
}

/*
 * A failed request: its slots stay in RAM, its blocks and budget go back.
 * The blocks are released at once, not deferred: no slot ever pointed to
 * them, so no reader can be reading them.
 */
static void zram_wb_fail_req(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	unsigned long *bitmap = ctl->zram->backing.bitmap;
	struct zram_wb *wb = &ctl->zram->wb;
	unsigned int i;

	for (i = 0; i < req->nr_objs; i++)
		zram_slot_wb_unselect(ctl->zram, req->objs[i].index);
	for (i = 0; i < req->nr_blocks; i++)
		zram_extent_release(bitmap, req->blocks[i], 1);
	zram_wb_limit_give(wb, req->nr_debited, req->limit_gen);
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

/**
 * zram_wb_commit - commit a completed request
 * @ctl: writeback
 * @req: request whose bios completed
 *
 * On success every slot still selected moves to its block or packed
 * object; the blocks of whole pages whose slots changed meanwhile are
 * released, and packed objects whose slots changed let go of their
 * blocks. Their budget is not given back: the device was written.
 * bd_writes counts every block written.
 *
 * Context: process context, the writer (zram.pp_lock held); takes slot
 * locks.
 */
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
 * zram_wb_commit_done - commit the completed requests
 * @ctl: writeback
 *
 * Takes every request on @ctl->done, commits it, and gives it back to
 * @ctl->free. Requests that complete meanwhile wait for the next call.
 *
 * Context: process context, the writer (zram.pp_lock held); takes slot
 * locks and @ctl->lock; may be rescheduled between requests.
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
		/* Up to 4096 requests of up to 256 slots each. */
		cond_resched();
	}
	spin_lock_irq(&ctl->lock);
	list_splice_tail(&done, &ctl->free);
	spin_unlock_irq(&ctl->lock);
	ctl->inflight -= nr;
}

/* ------------------------------------------------------------------ */
/* Running a writeback                                                */
/* ------------------------------------------------------------------ */

/* Frees an idle writeback (no request in flight); NULL is ignored. */
static void zram_wb_ctl_free(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req, *tmp;

	if (!ctl)
		return;
	/* zram_wb_run() reaped everything: nothing in flight or queued. */
	WARN_ON_ONCE(ctl->inflight || !list_empty(&ctl->done));
	list_for_each_entry_safe(req, tmp, &ctl->free, node)
		zram_wb_req_free(req);
	kfree(ctl->sizes);
	kfree(ctl->slots);
	kfree(ctl);
}

DEFINE_FREE(zram_wb_ctl, struct zram_wb_ctl *, zram_wb_ctl_free(_T))

/*
 * Pages per bio: the debugfs knob, within 1..ZRAM_WB_MAX_BIO_PAGES, the
 * backing queue's max_sectors and its max_segments (one page, one
 * segment, if nothing merges), so the block layer never has to split.
 */
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

/**
 * zram_wb_batch - split writeback_batch_size into requests
 * @wb: writeback state
 * @max_bio_pages: in: most pages per bio the device takes; out: pages per
 *	request
 *
 * writeback_batch_size is the number of pages in flight, clamped to
 * 1..%ZRAM_WB_MAX_INFLIGHT_PAGES. They are split into at least
 * %ZRAM_WB_MIN_REQS requests when there are that many pages, so the
 * device still sees several bios at once, each of at most @max_bio_pages.
 *
 * Return: requests in flight; with the pages per request, at most the
 * pages asked for.
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

/**
 * zram_wb_ctl_alloc - set up a writeback
 * @zram: initialized device with a backing device
 *
 * Samples the knobs. When packing, also makes sure the per-block packing
 * state exists (zram_bdev_pack_init()).
 *
 * Context: process context, zram.pp_lock held; may sleep.
 * Return: the writeback, or NULL when memory is short.
 */
static struct zram_wb_ctl *zram_wb_ctl_alloc(struct zram *zram)
{
	struct zram_wb *wb = &zram->wb;
	struct zram_wb_ctl *ctl;

	lockdep_assert_held(&zram->pp_lock);
	ctl = kzalloc_obj(*ctl);
	if (!ctl)
		return NULL;
	ctl->zram = zram;
	INIT_LIST_HEAD(&ctl->free);
	INIT_LIST_HEAD(&ctl->done);
	spin_lock_init(&ctl->lock);
	init_waitqueue_head(&ctl->wait);

	ctl->packed = wb->compressed;
	ctl->max_bio_pages = zram_wb_max_bio_pages(zram);
	ctl->batch_size = zram_wb_batch(wb, &ctl->max_bio_pages);
	ctl->max_objs = ctl->max_bio_pages;
	if (ctl->packed)
		ctl->max_objs = ZRAM_WB_MAX_PACKED_OBJS;
	if (READ_ONCE(wb->large_folios))
		ctl->folio_order = order_base_2(ctl->max_bio_pages);

	ctl->slots = kzalloc_objs(*ctl->slots, ZRAM_WB_SELECT_CHUNK);
	if (!ctl->slots)
		goto out_free;
	if (ctl->packed) {
		ctl->sizes = kzalloc_objs(*ctl->sizes, ZRAM_WB_SELECT_CHUNK);
		if (!ctl->sizes || zram_bdev_pack_init(zram))
			goto out_free;
	}
	return ctl;

out_free:
	zram_wb_ctl_free(ctl);
	return NULL;
}

/*
 * Runs one parsed parameter: select and write chunk after chunk. Process
 * context, zram.pp_lock held; sleeps.
 */
static void zram_wb_run_range(struct zram_wb_ctl *ctl,
			      const struct zram_wb_range *range)
{
	unsigned long index = range->lo;

	lockdep_assert_held(&ctl->zram->pp_lock);
	while (index < range->hi && !ctl->stop_err) {
		index = zram_wb_select(ctl, range->mode, index, range->hi);
		zram_wb_write_selected(ctl, range->mode);
		cond_resched();
	}
}

/**
 * zram_wb_run - run a writeback
 * @zram: initialized device with a backing device
 * @ranges: parsed parameters, run in order
 * @nr_ranges: number of @ranges
 *
 * Waits for all its own bios, also before each range but the first (see
 * top of file). First makes the blocks freed since the last writeback
 * reusable.
 *
 * Context: process context, zram.pp_lock held (the device stays
 * initialized); sleeps.
 * Return: 0; -EIO when a bio failed (the other slots were still
 * written), else -EIO when writeback_limit is enforced and stopped the
 * writeback with a selected slot left (not when no slot qualified, as
 * upstream), -ENOSPC when the backing device is full, -ENOMEM.
 */
int zram_wb_run(struct zram *zram, const struct zram_wb_range *ranges,
		int nr_ranges)
{
	int i;

	lockdep_assert_held(&zram->pp_lock);
	struct zram_wb_ctl *ctl __free(zram_wb_ctl) = zram_wb_ctl_alloc(zram);

	if (!ctl)
		return -ENOMEM;
	zram_wb_reclaim_blocks(zram);
	for (i = 0; i < nr_ranges && !ctl->stop_err; i++) {
		/*
		 * Ranges may repeat or overlap: no slot may be selected again
		 * while a bio carrying its old data is in flight (top of file).
		 */
		zram_wb_wait_all(ctl);
		zram_wb_run_range(ctl, &ranges[i]);
	}
	zram_wb_wait_all(ctl);

	/* A failed bio is reported before the reason the writeback stopped. */
	if (ctl->io_error)
		return -EIO;
	return ctl->stop_err;
}

/* ------------------------------------------------------------------ */
/* Module and device                                                  */
/* ------------------------------------------------------------------ */

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
	wb->batch_size = ZRAM_WB_DEF_BATCH_SIZE;
	wb->max_bio_pages = ZRAM_WB_MAX_BIO_PAGES;
	wb->large_folios = true;
}

/**
 * zram_wb_reset - release the backing device at device reset
 * @zram: device; every slot already freed
 *
 * Releases the backing device, its bitmaps (pending frees included) and
 * the read pin state (also when the device was never initialized).
 * writeback_limit, writeback_limit_enable, writeback_batch_size and
 * compressed_writeback are kept, as upstream's reset keeps them. No
 * read of a written-back slot is in flight: the core claimed and synced
 * the device, and freed every slot.
 * May run twice in a row (hot_remove); the second run changes nothing.
 *
 * Context: process context, zram.pp_lock held (no writeback runs, and
 * none uses the cursor) and init_lock held for write; sleeps.
 */
void zram_wb_reset(struct zram *zram)
{
	struct zram_wb *wb = &zram->wb;

	lockdep_assert_held(&zram->pp_lock);
	lockdep_assert_held_write(&zram->init_lock);
	zram_bdev_release(zram);
	zram_bdev_read_exit(zram);
	wb->cursor = (struct zram_extent_cursor){ };
}
