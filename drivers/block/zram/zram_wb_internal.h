/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private header of the writeback engine: a writeback call, its requests
 * and the slots they carry. Only the engine's own files include it; the
 * rest of the driver, zram_wb_sysfs.c too, sees writeback through
 * zram_wb.h.
 */
#ifndef _ZRAM_WB_INTERNAL_H_
#define _ZRAM_WB_INTERNAL_H_

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct folio;
struct page;
struct zram;

/* Most pages (and backing device blocks) one writeback bio carries. */
#define ZRAM_WB_MAX_BIO_PAGES	32

struct zram_wb_ctl;

/**
 * struct zram_wb_obj - one slot a request carries
 * @index: slot index
 * @pos: where its data starts in the request's block sequence, in bytes
 * @len: bytes of data: PAGE_SIZE for a whole page (@pos block aligned),
 *	else the slot's compressed object (packed)
 */
struct zram_wb_obj {
	u32 index;
	u32 pos;
	u32 len;
};

/**
 * struct zram_wb_req - one writeback request: the bios writing one block
 *	sequence, and the slots they carry
 * @node: on zram_wb_ctl.free while idle, on zram_wb_ctl.done once its bios
 *	completed, on the writer's own list while it commits them; on no
 *	list while they are in flight
 * @ctl: the writeback this request belongs to; outlives the request
 * @mode: ZRAM_WB_* mode the slots were selected with
 * @nr_blocks: blocks written: @blocks[0] to @blocks[@nr_blocks - 1]
 * @nr_packed: the first @nr_packed of them hold packed objects, the others
 *	one whole page each
 * @nr_objs: slots carried, in @objs
 * @nr_bios: bios written: one per run of adjacent blocks
 * @nr_debited: blocks debited from writeback_limit for this request
 * @limit_gen: zram_wb.limit_gen when they were debited
 * @pending: bios in flight
 * @status: an error one of them completed with, else 0
 * @blocks: the block sequence: backing device block of each of its blocks,
 *	from one extent or from several
 * @bufpg: page of the data buffer written to each block of the sequence
 * @folio: the data buffer as one folio of ctl->folio_order, holding page
 *	i at byte i * PAGE_SIZE; or NULL, and the buffer is @folios
 * @folios: without @folio, page i of the buffer as an order-0 folio,
 *	allocated on first use
 * @objs: the slots carried, ctl->max_objs entries
 *
 * The buffer is allocated once per request and kept for reuse while the
 * writeback runs.
 */
struct zram_wb_req {
	struct list_head node;
	struct zram_wb_ctl *ctl;
	unsigned int mode;
	unsigned int nr_blocks;
	unsigned int nr_packed;
	unsigned int nr_objs;
	unsigned int nr_bios;
	unsigned int nr_debited;
	u64 limit_gen;
	atomic_t pending;
	blk_status_t status;
	unsigned long blocks[ZRAM_WB_MAX_BIO_PAGES];
	u8 bufpg[ZRAM_WB_MAX_BIO_PAGES];
	struct folio *folio;
	struct folio *folios[ZRAM_WB_MAX_BIO_PAGES];
	struct zram_wb_obj *objs;
};

/**
 * struct zram_wb_ctl - state of one writeback call
 * @zram: the device
 * @packed: pack compressed objects (compressed_writeback, fixed while the
 *	device is initialized)
 * @batch_size: most requests in flight at a time
 * @max_bio_pages: most blocks (pages) per request
 * @max_objs: most slots per request
 * @folio_order: order of a request's buffer folio, enough for
 *	@max_bio_pages pages; 0 when every request uses order-0 folios
 * @slots: slot indexes selected and not yet taken by a request
 * @sizes: when packing, what zram_slot_wb_peek() said of @slots[i], for
 *	i below @peeked
 * @nr_selected: valid entries in @slots
 * @next: next entry of @slots to take
 * @peeked: entries of @slots from @next on whose size is known
 * @nr_reqs: requests allocated, at most @batch_size (writer only)
 * @lock: protects @free and @done; taken by zram_wb_end_io(), which may
 *	run in hard interrupt context, so irq-safe
 * @free: idle requests
 * @done: completed requests waiting to be committed
 * @inflight: requests submitted and not yet committed; writer only
 * @wait: the writer waits here for a request to complete
 * @stop_err: 0, or why the writeback stopped early (-EIO: writeback_limit
 *	exhausted, -ENOSPC, -ENOMEM); writer only
 * @io_error: some bio failed; those slots stayed in RAM; writer only
 *
 * The writer is the task running zram_wb_run(), holding zram.pp_lock for
 * the whole life of @ctl; it alone commits requests. Lifetime: freed only
 * after @inflight dropped to 0; a completion touches @ctl only under @lock,
 * before the writer takes @lock to commit its request, so no completion
 * touches freed memory.
 */
struct zram_wb_ctl {
	struct zram *zram;
	bool packed;
	unsigned int batch_size;
	unsigned int max_bio_pages;
	unsigned int max_objs;
	unsigned int folio_order;
	u32 *slots;
	u32 *sizes;
	unsigned int nr_selected;
	unsigned int next;
	unsigned int peeked;
	unsigned int nr_reqs;
	spinlock_t lock;	/* irq-safe: guards @free, @done */
	struct list_head free;
	struct list_head done;
	unsigned int inflight;
	wait_queue_head_t wait;
	int stop_err;
	bool io_error;
};

/* zram_wb_req.c: the request pool, their data buffers, waiting for them. */
void zram_wb_wait_all(struct zram_wb_ctl *ctl);
void zram_wb_commit_done(struct zram_wb_ctl *ctl);
struct zram_wb_req *zram_wb_get_req(struct zram_wb_ctl *ctl);
void zram_wb_put_req(struct zram_wb_ctl *ctl, struct zram_wb_req *req);
void zram_wb_req_free(struct zram_wb_req *req);
struct page *zram_wb_req_page(struct zram_wb_req *req, unsigned int n);
void *zram_wb_req_addr(struct zram_wb_req *req, unsigned int pos);

/* zram_wb_pack.c: packing compressed objects into blocks. */
unsigned int zram_wb_pack_estimate(struct zram_wb_ctl *ctl, unsigned int mode);
unsigned int zram_wb_pack(struct zram_wb_ctl *ctl, struct zram_wb_req *req,
			  unsigned int nr_blocks);
void zram_wb_hold_packed(struct zram *zram, const struct zram_wb_req *req);

#endif /* _ZRAM_WB_INTERNAL_H_ */
