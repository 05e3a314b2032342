// SPDX-License-Identifier: GPL-2.0-only
/*
 * Packed writeback (compressed_writeback): packs the selected slots'
 * compressed objects into a request's blocks, as "Packed slots" in zram.h.
 */

#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "zram_slot.h"
#include "zram_wb_internal.h"

/* zram_slot_wb_peek() of ctl->slots[@i], cached; @i <= ctl->peeked. */
static unsigned int zram_wb_size(struct zram_wb_ctl *ctl, unsigned int i,
				 unsigned int mode)
{
	if (i == ctl->peeked) {
		ctl->sizes[i] = zram_slot_wb_peek(ctl->zram, ctl->slots[i],
						  mode);
		ctl->peeked++;
	}
	return ctl->sizes[i];
}

/**
 * zram_wb_pack_estimate - blocks the next request will fill when packing
 * @ctl: writeback with selected slots left (of mode ctl->mode)
 *
 * Lets a request reserve and debit about what it writes, not a block a slot.
 *
 * Context: process context, zram.pp_lock held; takes slot locks.
 * Return: blocks, 1 to @ctl->knobs.max_bio_pages.
 */
unsigned int zram_wb_pack_estimate(struct zram_wb_ctl *ctl)
{
	unsigned int cap = ctl->knobs.max_bio_pages << PAGE_SHIFT;
	unsigned int i, size, bytes = 0, whole = 0, nr = 0;

	for (i = ctl->next;
	     i < ctl->nr_selected && nr < ctl->knobs.max_objs; i++) {
		size = zram_wb_size(ctl, i, ctl->mode);
		if (!size)
			continue;
		nr++;
		if (size == PAGE_SIZE)
			whole++;
		else
			bytes += size;
		if ((whole << PAGE_SHIFT) + bytes >= cap)
			break;
	}
	return clamp(whole + DIV_ROUND_UP(bytes, PAGE_SIZE), 1U,
		     ctl->knobs.max_bio_pages);
}

/* True when an object may run from block @a into block @b. */
static bool zram_wb_may_join(unsigned long a, unsigned long b)
{
	return b > a && b - a - 1 <= zram_loc_gap_max();
}

/*
 * At @pos unless a block would hold over ZRAM_PACK_MAX_OBJS objects or the
 * object would run into a block it may not join; UINT_MAX when none fits.
 */
static unsigned int zram_wb_pack_place(const struct zram_wb_req *req,
				       const unsigned int *nr,
				       unsigned int pos, unsigned int size,
				       unsigned int limit)
{
	unsigned int i;

	for (;;) {
		if (pos + size > limit << PAGE_SHIFT)
			return UINT_MAX;
		i = pos >> PAGE_SHIFT;
		if (nr[i] < ZRAM_PACK_MAX_OBJS) {
			if (offset_in_page(pos) + size <= PAGE_SIZE)
				return pos;
			if (nr[i + 1] < ZRAM_PACK_MAX_OBJS &&
			    zram_wb_may_join(req->blocks[i], req->blocks[i + 1]))
				return pos;
		}
		pos = (i + 1) << PAGE_SHIFT;
	}
}

/* Allocates the buffer pages of bytes [@from, @to); false on failure. */
static bool zram_wb_pack_pages(struct zram_wb_req *req, unsigned int from,
			       unsigned int to)
{
	unsigned int i;

	for (i = from >> PAGE_SHIFT; i < DIV_ROUND_UP(to, PAGE_SIZE); i++) {
		if (!zram_wb_req_page(req, i))
			return false;
	}
	return true;
}

/* Zeroes bytes [@from, @to) of the packed region, whose pages exist. */
static void zram_wb_pack_zero(struct zram_wb_req *req, unsigned int from,
			      unsigned int to)
{
	unsigned int len;

	while (from < to) {
		len = min_t(unsigned int, to - from,
			    PAGE_SIZE - offset_in_page(from));
		memset(zram_wb_req_addr(req, from), 0, len);
		from += len;
	}
}

/* False when the slot dropped out. */
static bool zram_wb_pack_copy(struct zram_wb_ctl *ctl,
			      struct zram_wb_req *req,
			      const struct zram_wb_obj *obj)
{
	unsigned int split = min_t(unsigned int, obj->len,
				   PAGE_SIZE - offset_in_page(obj->pos));
	void *dst = zram_wb_req_addr(req, obj->pos);
	void *dst2 = dst + split;

	if (split < obj->len)
		dst2 = zram_wb_req_addr(req, obj->pos + split);
	return zram_slot_wb_read_obj(ctl->zram, obj->index, req->mode,
				     obj->len, dst, split, dst2);
}

/**
 * zram_wb_pack - pack the next selected slots into a request
 * @ctl: writeback
 * @req: request, its mode set
 * @nr_blocks: blocks reserved for it, in req->blocks
 *
 * Objects fill the buffer from its first page, whole pages from its last
 * page down; packed blocks come first in the sequence, their unused bytes
 * zeroed.
 *
 * Context: process context, zram.pp_lock held; may sleep (allocation).
 * Return: blocks used, 0 to @nr_blocks; sets @ctl->stop_err to -ENOMEM
 * when a page cannot be allocated.
 */
unsigned int zram_wb_pack(struct zram_wb_ctl *ctl, struct zram_wb_req *req,
			  unsigned int nr_blocks)
{
	unsigned int nr[ZRAM_WB_MAX_BIO_PAGES] = { };
	unsigned int pos = 0, nr_whole = 0, at, i;
	struct zram_wb_obj *obj;
	struct page *page;

	lockdep_assert_held(&ctl->zram->pp_lock);
	req->nr_objs = 0;
	while (ctl->next < ctl->nr_selected &&
	       req->nr_objs < ctl->knobs.max_objs) {
		obj = &req->objs[req->nr_objs];
		obj->index = ctl->slots[ctl->next];
		obj->len = zram_wb_size(ctl, ctl->next, req->mode);
		if (!obj->len) {
			ctl->next++;
			continue;
		}
		if (obj->len == PAGE_SIZE) {
			if (DIV_ROUND_UP(pos, PAGE_SIZE) + nr_whole >= nr_blocks)
				break;
			page = zram_wb_req_page(req, nr_blocks - 1 - nr_whole);
			if (!page) {
				ctl->stop_err = -ENOMEM;
				break;
			}
			ctl->next++;
			if (!zram_slot_wb_read(ctl->zram, obj->index, req->mode,
					       page))
				continue;
			/* Its block is known once the packed ones are. */
			obj->pos = nr_whole++;
			req->nr_objs++;
			continue;
		}
		at = zram_wb_pack_place(req, nr, pos, obj->len,
					nr_blocks - nr_whole);
		if (at == UINT_MAX)
			break;
		if (!zram_wb_pack_pages(req, pos, at + obj->len)) {
			ctl->stop_err = -ENOMEM;
			break;
		}
		obj->pos = at;
		ctl->next++;
		if (!zram_wb_pack_copy(ctl, req, obj))
			continue;
		zram_wb_pack_zero(req, pos, at);
		i = at >> PAGE_SHIFT;
		nr[i]++;
		if (offset_in_page(at) + obj->len > PAGE_SIZE)
			nr[i + 1]++;
		pos = at + obj->len;
		req->nr_objs++;
	}

	req->nr_packed = DIV_ROUND_UP(pos, PAGE_SIZE);
	zram_wb_pack_zero(req, pos, req->nr_packed << PAGE_SHIFT);
	for (i = 0; i < req->nr_packed; i++)
		req->bufpg[i] = i;
	for (i = 0; i < nr_whole; i++)
		req->bufpg[req->nr_packed + i] = nr_blocks - 1 - i;
	for (i = 0; i < req->nr_objs; i++) {
		obj = &req->objs[i];
		if (obj->len == PAGE_SIZE)
			obj->pos = (req->nr_packed + obj->pos) << PAGE_SHIFT;
	}
	return req->nr_packed + nr_whole;
}

/**
 * zram_wb_hold_packed - count a request's packed objects into their blocks
 * @zram: device
 * @req: request whose bios completed without error
 *
 * Must precede installing any of its slots.
 *
 * Context: the writer committing @req (zram.pp_lock held); does not sleep.
 */
void zram_wb_hold_packed(struct zram *zram, const struct zram_wb_req *req)
{
	unsigned int nr[ZRAM_WB_MAX_BIO_PAGES] = { };
	const struct zram_wb_obj *obj;
	unsigned int i, blk;

	lockdep_assert_held(&zram->pp_lock);
	for (i = 0; i < req->nr_objs; i++) {
		obj = &req->objs[i];
		if (obj->len == PAGE_SIZE)
			continue;
		blk = obj->pos >> PAGE_SHIFT;
		nr[blk]++;
		if (offset_in_page(obj->pos) + obj->len > PAGE_SIZE)
			nr[blk + 1]++;
	}
	for (i = 0; i < req->nr_packed; i++)
		zram_bdev_pack_hold(zram, req->blocks[i], nr[i]);
}
