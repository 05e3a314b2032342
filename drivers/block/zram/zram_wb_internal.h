/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the writeback engine (zram_wb.c, zram_wb_req.c, zram_wb_pack.c):
 * one writeback call, its requests and the slots they carry.
 */
#ifndef _ZRAM_WB_INTERNAL_H_
#define _ZRAM_WB_INTERNAL_H_

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "zram_extent.h"

struct folio;
struct page;
struct zram;

/* Most pages (and backing device blocks) one writeback bio carries. */
#define ZRAM_WB_MAX_BIO_PAGES	32

struct zram_wb_ctl;

/**
 * struct zram_wb_obj - one slot a request carries
 * @index: slot index
 * @pos: byte offset of its data in the request's block sequence
 * @len: PAGE_SIZE for a whole page (@pos block aligned), else the length
 *	of its packed compressed object
 */
struct zram_wb_obj {
	u32 index;
	u32 pos;
	u32 len;
};

/**
 * struct zram_wb_req - one request: the bios writing one block sequence
 * @node: on ctl->free when idle, on ctl->done when completed, else private
 * @ctl: the owning writeback; outlives the request
 * @mode: ZRAM_WB_* mode the slots were selected with
 * @nr_blocks: valid entries in @blocks and @bufpg
 * @nr_packed: leading blocks holding packed objects; the rest a page each
 * @nr_objs: valid entries in @objs
 * @nr_bios: bios, one per run of adjacent blocks
 * @nr_debited: pages debited from writeback_limit
 * @limit_gen: zram_wb.limit_gen at the debit
 * @pending: bios in flight
 * @failed: blocks of the bios that completed with an error
 * @status: an error one of them completed with, else 0
 * @blocks: backing device block of each block of the sequence
 * @bufpg: buffer page written to each block of the sequence
 * @folio: the buffer as one folio of ctl->knobs.folio_order, or NULL
 * @folios: without @folio, each buffer page as an order-0 folio, or NULL
 * @objs: the slots carried, ctl->knobs.max_objs entries
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
	atomic_t failed;
	blk_status_t status;
	unsigned long blocks[ZRAM_WB_MAX_BIO_PAGES];
	u8 bufpg[ZRAM_WB_MAX_BIO_PAGES];
	struct folio *folio;
	struct folio *folios[ZRAM_WB_MAX_BIO_PAGES];
	struct zram_wb_obj *objs;
};

/**
 * struct zram_wb_knobs - what a writeback sampled; its requests fit these
 * @packed: pack compressed objects (compressed_writeback)
 * @batch_size: most requests in flight
 * @max_bio_pages: most blocks (pages) per request
 * @max_objs: most slots per request
 * @folio_order: order of a request's buffer folio; 0: order-0 folios only
 * @max_bios: most bios in flight: 3/4 of the backing device's queue depth,
 *	so that its readers keep the rest
 */
struct zram_wb_knobs {
	bool packed;
	unsigned int batch_size;
	unsigned int max_bio_pages;
	unsigned int max_objs;
	unsigned int folio_order;
	unsigned int max_bios;
};

/**
 * struct zram_wb_ctl - state of a writeback call, kept idle between calls
 * @zram: the device
 * @knobs: the knobs its requests were made for
 * @mode: ZRAM_WB_* mode the slots of the chunk were selected with
 * @slots: the chunk: selected slot indexes, from one or more ranges
 * @sizes: when packing, zram_slot_wb_peek() of each of @slots
 * @nr_selected: valid entries in @slots
 * @next: next entry of @slots to take
 * @peeked: valid entries in @sizes
 * @walked: slots walked since the chunk was last written
 * @last: slot this writeback call placed last as a whole page, U32_MAX for
 *	none
 * @last_block: the block @last went to
 * @nr_reqs: requests allocated, at most @knobs.batch_size
 * @lock: guards @free and @done; irq-safe, zram_wb_end_io() takes it
 * @free: idle requests
 * @done: completed requests waiting to be committed
 * @inflight: requests submitted and not yet committed
 * @bios: bios submitted and not yet completed
 * @plugged: pages submitted since the writer's plug was last flushed
 * @wait: the writer waits here for a completion, or for @bios to drain
 * @stop_err: why the writeback stopped early (zram_wb_run()'s errno), or 0
 * @io_error: some bio failed; its slots stayed in RAM
 * @staged: room for zram_bdev_harvest(), empty between its calls
 *
 * The writer (zram_wb_run(), zram.pp_lock held) owns all but @lock, @free,
 * @done and @bios; parked as zram_wb.spare, the holder of zram.pp_lock owns
 * it. A completion touches @ctl (@bios, @wait, and the rest under @lock)
 * only before the writer commits its request; @ctl is parked or freed once
 * @inflight is 0.
 */
struct zram_wb_ctl {
	struct zram *zram;
	struct zram_wb_knobs knobs;
	unsigned int mode;
	u32 *slots;
	u32 *sizes;
	unsigned int nr_selected;
	unsigned int next;
	unsigned int peeked;
	unsigned int walked;
	u32 last;
	unsigned long last_block;
	unsigned int nr_reqs;
	spinlock_t lock;	/* irq-safe: guards @free, @done */
	struct list_head free;
	struct list_head done;
	unsigned int inflight;
	atomic_t bios;
	unsigned int plugged;
	wait_queue_head_t wait;
	int stop_err;
	bool io_error;
	struct zram_extent_staged staged;
};

/* zram_wb_req.c: the request pool, their data buffers, waiting for them. */
void zram_wb_wait_all(struct zram_wb_ctl *ctl);
void zram_wb_dispatch(struct zram_wb_ctl *ctl);
void zram_wb_wait_bios(struct zram_wb_ctl *ctl);
void zram_wb_commit_done(struct zram_wb_ctl *ctl);
struct zram_wb_req *zram_wb_get_req(struct zram_wb_ctl *ctl);
void zram_wb_put_req(struct zram_wb_ctl *ctl, struct zram_wb_req *req);
void zram_wb_req_free(struct zram_wb_req *req);
void zram_wb_trim(struct zram_wb_ctl *ctl, unsigned int keep);
struct page *zram_wb_req_page(struct zram_wb_req *req, unsigned int n);
void *zram_wb_req_addr(struct zram_wb_req *req, unsigned int pos);

/* zram_wb_pack.c: packing compressed objects into blocks. */
unsigned int zram_wb_pack_estimate(struct zram_wb_ctl *ctl);
unsigned int zram_wb_pack(struct zram_wb_ctl *ctl, struct zram_wb_req *req,
			  unsigned int nr_blocks);
void zram_wb_hold_packed(struct zram *zram, const struct zram_wb_req *req);

#endif /* _ZRAM_WB_INTERNAL_H_ */
