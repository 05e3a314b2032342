// SPDX-License-Identifier: GPL-2.0-only
/* Writeback requests: the pool a writeback keeps in flight, their buffers. */

#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "zram.h"
#include "zram_wb_internal.h"

/*
 * A wait flushes the writer's plug first: sleeping plugged defers dispatch
 * to kblockd. Under a caller's plug (aio) the writer's is the caller's.
 */
static struct blk_plug *zram_wb_unplug(struct zram_wb_ctl *ctl)
{
	struct blk_plug *plug = current->plug;

	ctl->plugged = 0;
	if (plug)
		blk_finish_plug(plug);
	return plug;
}

static void zram_wb_replug(struct blk_plug *plug)
{
	if (plug)
		blk_start_plug(plug);
}

/**
 * zram_wb_dispatch - send the bios the writer holds plugged to the device
 * @ctl: writeback
 *
 * Context: the writer (zram.pp_lock held); may sleep.
 */
void zram_wb_dispatch(struct zram_wb_ctl *ctl)
{
	zram_wb_replug(zram_wb_unplug(ctl));
}

/**
 * zram_wb_wait_bios - wait until at most half of knobs.max_bios are in flight
 * @ctl: writeback with @ctl->knobs.max_bios bios in flight or more
 *
 * Sends what the writer holds plugged first: those bios count.
 *
 * Context: the writer (zram.pp_lock held); sleeps.
 */
void zram_wb_wait_bios(struct zram_wb_ctl *ctl)
{
	unsigned int half = ctl->knobs.max_bios / 2;
	struct blk_plug *plug;

	lockdep_assert_held(&ctl->zram->pp_lock);
	plug = zram_wb_unplug(ctl);
	wait_event(ctl->wait, atomic_read(&ctl->bios) <= half);
	zram_wb_replug(plug);
}

/* True once a request in flight has completed; takes @ctl->lock. */
static bool zram_wb_any_done(struct zram_wb_ctl *ctl)
{
	bool done;

	spin_lock_irq(&ctl->lock);
	done = !list_empty(&ctl->done);
	spin_unlock_irq(&ctl->lock);
	return done;
}

/* Waits for a completion, then commits what completed. */
static void zram_wb_wait_commit(struct zram_wb_ctl *ctl)
{
	struct blk_plug *plug;

	lockdep_assert_held(&ctl->zram->pp_lock);
	plug = zram_wb_unplug(ctl);
	wait_event(ctl->wait, zram_wb_any_done(ctl));
	zram_wb_commit_done(ctl);
	zram_wb_replug(plug);
}

/**
 * zram_wb_wait_all - wait until every request in flight was committed
 * @ctl: writeback
 *
 * Context: process context, zram.pp_lock held; sleeps.
 */
void zram_wb_wait_all(struct zram_wb_ctl *ctl)
{
	lockdep_assert_held(&ctl->zram->pp_lock);
	while (ctl->inflight)
		zram_wb_wait_commit(ctl);
}

/**
 * zram_wb_put_req - give an unused request back to @ctl->free
 * @ctl: writeback
 * @req: request from zram_wb_get_req(), not submitted
 *
 * Context: the writer; takes @ctl->lock.
 */
void zram_wb_put_req(struct zram_wb_ctl *ctl, struct zram_wb_req *req)
{
	spin_lock_irq(&ctl->lock);
	list_add(&req->node, &ctl->free);
	spin_unlock_irq(&ctl->lock);
}

/**
 * zram_wb_req_free - free a request and its data buffer
 * @req: request not in flight, on no list used again
 *
 * Context: the writer.
 */
void zram_wb_req_free(struct zram_wb_req *req)
{
	unsigned int i;

	if (req->folio)
		folio_put(req->folio);
	for (i = 0; i < ZRAM_WB_MAX_BIO_PAGES; i++) {
		if (req->folios[i])
			folio_put(req->folios[i]);
	}
	kfree(req->objs);
	kfree(req);
}

/**
 * zram_wb_trim - free idle requests until at most @keep exist
 * @ctl: writeback with no request in flight
 * @keep: requests to keep
 *
 * Context: the holder of zram.pp_lock; may sleep.
 */
void zram_wb_trim(struct zram_wb_ctl *ctl, unsigned int keep)
{
	struct zram_wb_req *req, *tmp;

	lockdep_assert_held(&ctl->zram->pp_lock);
	WARN_ON_ONCE(ctl->inflight);
	list_for_each_entry_safe(req, tmp, &ctl->free, node) {
		if (ctl->nr_reqs <= keep)
			break;
		list_del(&req->node);
		zram_wb_req_free(req);
		ctl->nr_reqs--;
	}
}

/* A buffer folio only when it is cheap; order-0 folios are the fallback. */
#define ZRAM_WB_GFP_LARGE_FOLIO	((GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN | \
				  __GFP_NOMEMALLOC) & ~__GFP_RECLAIM)

/* A new request, on no list, or NULL. */
static struct zram_wb_req *zram_wb_req_alloc(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req;

	req = kzalloc_obj(*req);
	if (!req)
		return NULL;
	req->objs = kzalloc_objs(*req->objs, ctl->knobs.max_objs);
	if (!req->objs) {
		zram_wb_req_free(req);
		return NULL;
	}
	if (ctl->knobs.folio_order)
		req->folio = folio_alloc(ZRAM_WB_GFP_LARGE_FOLIO,
					 ctl->knobs.folio_order);
	req->ctl = ctl;
	ctl->nr_reqs++;
	return req;
}

/**
 * zram_wb_req_page - page @n of a request's data buffer
 * @req: request
 * @n: page index in the buffer, below ctl->knobs.max_bio_pages
 *
 * Context: the writer; may sleep (allocates an order-0 folio on first use).
 * Return: the page, or NULL when it could not be allocated.
 */
struct page *zram_wb_req_page(struct zram_wb_req *req, unsigned int n)
{
	if (req->folio)
		return folio_page(req->folio, n);
	if (!req->folios[n])
		req->folios[n] = folio_alloc(GFP_KERNEL, 0);
	return req->folios[n] ? folio_page(req->folios[n], 0) : NULL;
}

/**
 * zram_wb_req_addr - kernel address of a byte of a request's data buffer
 * @req: request
 * @pos: byte offset in the buffer; its page had from zram_wb_req_page()
 *
 * Context: any; the writer only.
 * Return: the address, valid as long as the buffer (never highmem).
 */
void *zram_wb_req_addr(struct zram_wb_req *req, unsigned int pos)
{
	if (req->folio)
		return folio_address(req->folio) + pos;
	return folio_address(req->folios[pos >> PAGE_SHIFT]) +
	       offset_in_page(pos);
}

/* Takes an idle request off @ctl->free, or returns NULL. */
static struct zram_wb_req *zram_wb_take_req(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req;

	spin_lock_irq(&ctl->lock);
	req = list_first_entry_or_null(&ctl->free, struct zram_wb_req, node);
	if (req)
		list_del_init(&req->node);
	spin_unlock_irq(&ctl->lock);
	return req;
}

/**
 * zram_wb_get_req - get an idle request
 * @ctl: writeback
 *
 * Commits what completed, then takes an idle request, allocates one while
 * fewer than @ctl->knobs.batch_size exist, or waits for a completion.
 *
 * Context: process context, zram.pp_lock held; sleeps.
 * Return: a request on no list, or NULL when none exists nor could be
 * allocated.
 */
struct zram_wb_req *zram_wb_get_req(struct zram_wb_ctl *ctl)
{
	struct zram_wb_req *req;

	lockdep_assert_held(&ctl->zram->pp_lock);
	/* Plugged bios may merge with the next request's: keep them. */
	zram_wb_commit_done(ctl);
	req = zram_wb_take_req(ctl);
	if (req)
		return req;
	if (ctl->nr_reqs < ctl->knobs.batch_size) {
		req = zram_wb_req_alloc(ctl);
		if (req)
			return req;
	}
	if (!ctl->nr_reqs)
		return NULL;
	zram_wb_wait_commit(ctl);
	return zram_wb_take_req(ctl);
}
